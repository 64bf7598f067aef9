#pragma once
// Runtimes built on the faulty test plugins (tests/unit/plugins), and the
// controls that make them fail and tell what they saw.
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <string>

#include "plugins/plugin_control.hpp"
#include "rtkit/rtkit.hpp"

namespace rtkit::test {

/// The test twin standing in for a kind of plugin: reactor "faulty_epoll",
/// timer "faulty_wheel" or lanes "hoarding".
inline std::string faulty_twin(const std::string& kind) {
    if (kind == "reactor") return "faulty_epoll";
    if (kind == "timer") return "faulty_wheel";
    REQUIRE_MESSAGE(kind == "lanes", "no faulty twin for plugin kind ", kind);
    return "hoarding";
}

/// Replaces `config`'s plugin of `kind` with its faulty twin.
inline void use_faulty(runtime_config& config, const std::string& kind) {
    config.plugin_search_path = {RTKIT_TEST_UNIT_PLUGIN_DIR};
    plugin_selection& slot =
        kind == "reactor" ? config.reactor : (kind == "timer" ? config.timer : config.lanes);
    slot.preference = {faulty_twin(kind)};
    slot.strict = true;
}

/// The defaults, with one plugin replaced by its faulty twin.
inline runtime_config config_with_faulty(const std::string& kind) {
    runtime_config c;
    use_faulty(c, kind);
    return c;
}

/// The file of a faulty plugin.
inline std::string faulty_file(const std::string& kind) {
    return std::string(RTKIT_TEST_UNIT_PLUGIN_DIR) + "/rtkit_" + kind + "_" + faulty_twin(kind) +
           ".so";
}

/// The control exported by a faulty plugin's library.
inline plugin_control& control_in(void* library, const std::string& file) {
    auto get = reinterpret_cast<plugin_control* (*)()>(dlsym(library, "rtkit_test_plugin_control"));
    const bool exported = get != nullptr;
    REQUIRE_MESSAGE(exported, "no plugin control in ", file);
    return *get();
}

/// The control of a faulty plugin that a runtime has loaded: the library
/// is already mapped, so dlopen finds that copy (RTLD_NOLOAD) and its control.
inline plugin_control& control_of(const std::string& kind) {
    const std::string file = faulty_file(kind);
    void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD);
    REQUIRE_MESSAGE(library != nullptr, "not loaded: ", file);
    plugin_control& control = control_in(library, file);
    dlclose(library);  // the runtime keeps its own reference
    return control;
}

/// A faulty plugin's library, mapped before any runtime loads it (a runtime
/// then shares this copy), so that a test can set its control before the
/// runtime's workers start. Unmapped when the last reference goes.
class early_faulty_plugin {
  public:
    explicit early_faulty_plugin(const std::string& kind) : file_(faulty_file(kind)) {
        library_ = dlopen(file_.c_str(), RTLD_NOW);
        REQUIRE_MESSAGE(library_ != nullptr, "cannot load ", file_, ": ", dlerror());
    }
    ~early_faulty_plugin() { dlclose(library_); }
    early_faulty_plugin(const early_faulty_plugin&) = delete;
    early_faulty_plugin& operator=(const early_faulty_plugin&) = delete;

    plugin_control& control() { return control_in(library_, file_); }

  private:
    std::string file_;
    void* library_ = nullptr;
};

}  // namespace rtkit::test
