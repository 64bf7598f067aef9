#pragma once
// Helpers shared by the property tests: rapidcheck properties run as doctest
// cases through plain rc::check calls, on plugins loaded from their files.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <memory>
#include <string_view>

#include "rtkit/plugin_loader.hpp"

namespace property_test {

/// A built-in plugin object of `Interface`, created by the plugin loader from
/// its file with `options`.
template <class Interface>
std::shared_ptr<Interface> builtin_plugin(std::string_view name, rtkit::option_table options) {
    return rtkit::plugin_loader().create_by_name<Interface>(name, options);
}

}  // namespace property_test
