#pragma once
// rtctl conformance PATH.so: runs the conformance suite of the file's plugin
// kind against it and prints the report; --list says what each case checks.
#include <filesystem>
#include <string>
#include <vector>

namespace rtctl {

struct conformance_options {
    std::filesystem::path plugin_file;
    /// "key=value" plugin options, passed to every object the suite creates.
    std::vector<std::string> options;
    /// --list: print every suite's cases and what each checks, run nothing.
    bool list = false;
};

/// Exit status: 0 every case passed (skipped cases allowed), 1 a case failed,
/// 2 the file could not be loaded or created, or an option is malformed (or
/// neither a file nor --list was given). With --list: 0.
int conformance_command(const conformance_options& options);

}  // namespace rtctl
