#pragma once
// A TOML file of the test's own in the temporary directory, removed at the
// end. Unique per file, so test cases that ctest runs in parallel processes
// never share one.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

struct temp_toml {
    explicit temp_toml(const std::string& text) {
        std::string name =
            (std::filesystem::temp_directory_path() / "rtkit-test-XXXXXX.toml").string();
        const int fd = mkstemps(name.data(), 5);
        if (fd < 0) throw std::runtime_error("mkstemps failed");
        ::close(fd);
        path = name;
        std::ofstream(path) << text;
    }
    ~temp_toml() { std::filesystem::remove(path); }
    temp_toml(const temp_toml&) = delete;
    temp_toml& operator=(const temp_toml&) = delete;
    std::filesystem::path path;
};
