#pragma once
// Keeps the built-in plugins mapped for the whole fuzz run. libFuzzer
// registers each instrumented library's coverage counters when it is mapped,
// and would write to them after an unload; loading every plugin once with
// RTLD_NODELETE, before the loader opens them, keeps them mapped, and makes
// the loader's dlopen of each, for every input, only take a reference.
#include <dlfcn.h>

#include <filesystem>

#include "fuzz_support.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtkit_fuzz {

inline void keep_builtin_plugins_loaded() {
    for (const std::filesystem::directory_entry& file :
         std::filesystem::directory_iterator(rtkit::plugin_loader::builtin_dir()))
        if (file.path().extension() == ".so")
            expect(::dlopen(file.path().c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) != nullptr,
                   "the built-in plugins load", file.path().string());
}

}  // namespace rtkit_fuzz
