#pragma once
// Helpers shared by the plugin loader tests.
#include <cstdlib>
#include <string>

#include "rtkit/plugin_loader.hpp"

namespace loader_test {

/// The message of the plugin_error that `f` throws ("" if it throws none).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const rtkit::plugin_error& e) {
        return e.what();
    }
    return "";
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Sets (or, with nullptr, unsets) an environment variable for one scope.
class scoped_env {
  public:
    scoped_env(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~scoped_env() {
        if (had_)
            setenv(name_, old_.c_str(), 1);
        else
            unsetenv(name_);
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

  private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

}  // namespace loader_test
