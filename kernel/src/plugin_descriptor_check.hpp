#pragma once
// The loader's checks of a plugin descriptor, as one function over the
// descriptor alone: tests and the fuzz harness call it on descriptors they
// build, without loading a library or running plugin code.
#include <filesystem>

#include "rtkit/plugin.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtkit::detail {

/// Checks the descriptor that `file` exports, in the loader's order: ABI
/// major, ABI minor, descriptor size, toolchain, kind, then name,
/// create/destroy and each option declaration. Each check reads only fields
/// that the checks before it proved exist, and no function of the descriptor
/// is called. Returns what the descriptor declares; throws plugin_error naming
/// `file`, what is wrong and what to do.
plugin_info check_descriptor(const rtkit_plugin_descriptor& descriptor,
                             const std::filesystem::path& file);

}  // namespace rtkit::detail
