#pragma once
// Helpers shared by the property tests: rapidcheck properties run as doctest
// cases through plain rc::check calls, on plugins loaded from their files.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <memory>
#include <string_view>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin_loader.hpp"

namespace property_test {

/// A built-in plugin object of `Interface`, created by the plugin loader from
/// its file with `options`.
template <class Interface>
std::shared_ptr<Interface> builtin_plugin(std::string_view name, rtkit::option_table options) {
    return rtkit::plugin_loader().create_by_name<Interface>(name, options);
}

/// A task of the model: a policy sees only its schedulable base.
struct model_task : rtkit::schedulable {
    int id = 0;  ///< its push order
};

/// The id of the model task `task` (-1 for none).
inline int id_of(rtkit::schedulable* task) {
    return task ? static_cast<model_task*>(task)->id : -1;
}

}  // namespace property_test
