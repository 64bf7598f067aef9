// rtctl reads scripts and TOML files with one bounded reader: regular files
// (or '-', standard input) of at most 16 MiB, read errors reported. Each case
// runs the real binary with a timeout and, outside sanitizer builds, a memory
// cap, so a regression to an unbounded or blocking read fails instead of
// hanging the suite or exhausting the machine.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rtctl_process.hpp"

namespace {

namespace fs = std::filesystem;

constexpr unsigned long input_cap = 16ul << 20;

/// A fresh directory under the temporary directory, removed at the end.
struct scratch_dir {
    scratch_dir() {
        std::string name = (fs::temp_directory_path() / "rtctl-input-XXXXXX").string();
        if (!mkdtemp(name.data())) throw std::runtime_error("mkdtemp failed");
        path = name;
    }
    ~scratch_dir() { fs::remove_all(path); }
    fs::path path;
};

/// Limits for a child that must answer at once: 20 s before it is killed
/// (generous for sanitizer builds) and 1 GiB of address space.
rtctl_limits bounded(std::string stdin_path = "/dev/null") {
    rtctl_limits limits;
    limits.stdin_path = std::move(stdin_path);
    limits.timeout_seconds = 20;
    limits.memory_limit_bytes = 1ul << 30;
    return limits;
}

/// A sparse file of `size` bytes (zeros).
void make_file_of_size(const fs::path& path, unsigned long size) {
    std::ofstream(path).close();
    fs::resize_file(path, size);
}

std::string fifo_in(const scratch_dir& dir) {
    const fs::path fifo = dir.path / "input.fifo";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    return fifo.string();
}

}  // namespace

TEST_CASE("rtctl check - a FIFO is refused at once instead of blocking on it") {
    const scratch_dir dir;
    const auto r = run_rtctl({"check", fifo_in(dir)}, bounded());
    CHECK(r.status == 2);
    CHECK(contains(r.err, "cannot read script '" + (dir.path / "input.fifo").string() +
                              "': it is a FIFO, not a regular file"));
}

TEST_CASE("rtctl check - /dev/zero is refused instead of read until memory runs out") {
    const auto r = run_rtctl({"check", "/dev/zero"}, bounded());
    CHECK(r.status == 2);
    CHECK(r.err ==
          "rtctl: error: cannot read script '/dev/zero': it is a character device, not "
          "a regular file; give a file, or '-' for standard input\n");
}

TEST_CASE("rtctl check - a script over 16 MiB is refused with the limit in the message") {
    const scratch_dir dir;
    const fs::path big = dir.path / "big.rts";
    make_file_of_size(big, input_cap + 1);
    const auto r = run_rtctl({"check", big.string()}, bounded());
    CHECK(r.status == 2);
    CHECK(r.err == "rtctl: error: cannot read script '" + big.string() +
                       "': it is larger than the 16 MiB limit on input files\n");

    // Exactly the limit is read (and then refused by the parser, being zeros).
    make_file_of_size(big, input_cap);
    const auto at_cap = run_rtctl({"check", big.string()}, bounded());
    CHECK(at_cap.status == 2);
    CHECK_FALSE(contains(at_cap.err, "16 MiB"));
}

TEST_CASE("rtctl check - a read error is reported - not taken for an empty script") {
    // /proc/self/mem is a regular file whose first page cannot be read (EIO).
    const auto r = run_rtctl({"check", "/proc/self/mem"}, bounded());
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err == "rtctl: error: cannot read script '/proc/self/mem': Input/output error\n");
}

TEST_CASE("rtctl check and run read the script from standard input for '-'") {
    const scratch_dir dir;
    const fs::path script = dir.path / "from_stdin.rts";
    std::ofstream(script) << "print \"read from stdin\"\n";
    const auto checked = run_rtctl({"check", "-"}, bounded(script.string()));
    CHECK(checked.err == "");
    CHECK(checked.out == "<stdin>: ok (1 top-level statements, 0 functions)\n");
    const auto ran = run_rtctl({"run", "-"}, bounded(script.string()));
    CHECK(ran.err == "");
    CHECK(ran.status == 0);
    CHECK(ran.out == "read from stdin\n");
}

TEST_CASE("rtctl check - - standard input is capped at 16 MiB too") {
    const auto r = run_rtctl({"check", "-"}, bounded("/dev/zero"));
    CHECK(r.status == 2);
    CHECK(r.err ==
          "rtctl: error: cannot read script '<stdin>': it is larger than the 16 MiB "
          "limit on input files\n");
}

TEST_CASE("rtctl config check - a directory is refused - not ok") {
    const scratch_dir dir;
    const auto r = run_rtctl({"config", "check", dir.path.string()}, bounded());
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err == dir.path.string() +
                       ": error: cannot read the configuration file: it is a directory, not a "
                       "regular file; give a file, or '-' for standard input\n");
}

TEST_CASE("rtctl run --config DIR refuses instead of running on the defaults") {
    const scratch_dir dir;
    const auto r =
        run_rtctl({"run", "examples/scripts/hello.rts", "--config", dir.path.string()}, bounded());
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(contains(r.err, "it is a directory"));
}

TEST_CASE("rtctl config check - FIFO - /dev/zero - oversized - unreadable files are refused") {
    const scratch_dir dir;
    const std::string fifo = fifo_in(dir);
    const auto from_fifo = run_rtctl({"config", "check", fifo}, bounded());
    CHECK(from_fifo.status == 2);
    CHECK(contains(from_fifo.err, "it is a FIFO, not a regular file"));

    const auto from_zero = run_rtctl({"config", "check", "/dev/zero"}, bounded());
    CHECK(from_zero.status == 2);
    CHECK(contains(from_zero.err, "it is a character device, not a regular file"));

    const fs::path big = dir.path / "big.toml";
    make_file_of_size(big, input_cap + 1);
    const auto too_big = run_rtctl({"config", "check", big.string()}, bounded());
    CHECK(too_big.status == 2);
    CHECK(too_big.err == big.string() +
                             ": error: cannot read the configuration file: it is larger than the "
                             "16 MiB limit on input files\n");

    const auto unreadable = run_rtctl({"config", "check", "/proc/self/mem"}, bounded());
    CHECK(unreadable.status == 2);
    CHECK(unreadable.err ==
          "/proc/self/mem: error: cannot read the configuration file: Input/output error\n");
}

TEST_CASE("rtctl config check - reads standard input for '-' - capped like a file") {
    const scratch_dir dir;
    const fs::path toml = dir.path / "stdin.toml";
    std::ofstream(toml) << "[runtime]\nname = \"piped\"\n";
    const auto ok = run_rtctl({"config", "check", "-"}, bounded(toml.string()));
    CHECK(ok.err == "");
    CHECK(ok.out == "<stdin>: ok\n");

    const auto zero = run_rtctl({"config", "check", "-"}, bounded("/dev/zero"));
    CHECK(zero.status == 2);
    CHECK(zero.err ==
          "<stdin>: error: cannot read the configuration file: it is larger than the "
          "16 MiB limit on input files\n");
}

TEST_CASE("rtctl run - - refuses standard input for both the script and the configuration") {
    const auto r = run_rtctl({"run", "-", "--config", "-"}, bounded());
    CHECK(r.status == 2);
    CHECK(r.err ==
          "rtctl: error: standard input ('-') can hold the script or the configuration, not "
          "both\n");
}
