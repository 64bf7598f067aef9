#include "script_file.hpp"

#include <iostream>

#include "rtkit/config/input_file.hpp"

namespace rtctl {

std::shared_ptr<const rtkit::script::source_file> read_script(const std::filesystem::path& path) {
    const std::string name = rtkit::config::input_name(path);
    try {
        return std::make_shared<const rtkit::script::source_file>(
            rtkit::script::source_file{name, rtkit::config::read_input_file(path)});
    } catch (const rtkit::config::input_error& e) {
        std::cerr << "rtctl: error: cannot read script '" << name << "': " << e.what() << '\n';
        return nullptr;
    }
}

}  // namespace rtctl
