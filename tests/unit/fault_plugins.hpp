#pragma once
// Runtimes built on the faulty test plugins (tests/unit/plugins), and the
// switches that make them fail.
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <string>

#include "plugins/fault_switch.hpp"
#include "rtkit/rtkit.hpp"

namespace rtkit::test {

/// The defaults, with one plugin replaced by its faulty twin: reactor
/// "faulty_epoll", timer "faulty_wheel" or lanes "faulty_three_lane".
inline runtime_config config_with_faulty(const std::string& kind) {
    runtime_config c;
    c.plugin_search_path = {RTKIT_TEST_UNIT_PLUGIN_DIR};
    plugin_selection& slot = kind == "reactor" ? c.reactor : kind == "timer" ? c.timer : c.lanes;
    slot.preference = {kind == "reactor" ? "faulty_epoll"
                       : kind == "timer" ? "faulty_wheel"
                                         : "faulty_three_lane"};
    slot.strict = true;
    return c;
}

/// The fault switch of a faulty plugin that a runtime has loaded: the library
/// is already mapped, so dlopen finds that copy (RTLD_NOLOAD) and its switch.
inline fault_switch& fault_switch_of(const std::string& kind) {
    const std::string file = std::string(RTKIT_TEST_UNIT_PLUGIN_DIR) + "/rtkit_" + kind +
                             (kind == "reactor" ? "_faulty_epoll.so"
                              : kind == "timer" ? "_faulty_wheel.so"
                                                : "_faulty_three_lane.so");
    void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD);
    REQUIRE_MESSAGE(library != nullptr, "not loaded: ", file);
    auto get = reinterpret_cast<fault_switch* (*)()>(dlsym(library, "rtkit_test_fault_switch"));
    const bool exported = get != nullptr;
    REQUIRE_MESSAGE(exported, "no fault switch in ", file);
    fault_switch* s = get();
    dlclose(library);  // the runtime keeps its own reference
    return *s;
}

}  // namespace rtkit::test
