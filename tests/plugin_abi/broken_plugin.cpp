// One deliberately broken plugin per build: the CMake target picks the defect
// with a compile definition. Everything not overridden is valid.
#include <stdexcept>

#include "rtkit/plugin.hpp"

#ifndef ABI_MAJOR_VALUE
#define ABI_MAJOR_VALUE RTKIT_PLUGIN_ABI_MAJOR
#endif
#ifndef ABI_MINOR_VALUE
#define ABI_MINOR_VALUE RTKIT_PLUGIN_ABI_MINOR
#endif
#ifndef DESCRIPTOR_SIZE_VALUE
#define DESCRIPTOR_SIZE_VALUE sizeof(rtkit_plugin_descriptor)
#endif
#ifndef KIND_VALUE
#define KIND_VALUE RTKIT_PLUGIN_REACTOR
#endif
#ifndef TOOLCHAIN_VALUE
#define TOOLCHAIN_VALUE RTKIT_TOOLCHAIN_TAG
#endif

namespace {

// Every variant's factory throws: only the throwing_factory variant gets far
// enough for the loader to call it.
void* create_throws(const rtkit_plugin_args*) {
    throw std::runtime_error("cannot open /dev/fake-device");
}
void destroy_nothing(void*) {}

[[maybe_unused]] constexpr rtkit_plugin_descriptor broken_descriptor{
    ABI_MAJOR_VALUE,
    ABI_MINOR_VALUE,
    static_cast<std::uint32_t>(DESCRIPTOR_SIZE_VALUE),
    KIND_VALUE,
    TOOLCHAIN_VALUE,
    "broken",
    "0.0.1",
    "a deliberately broken plugin for loader tests",
    nullptr,
    0,
    &create_throws,
    &destroy_nothing,
    {}};

}  // namespace

#ifdef BROKEN_NO_DESCRIPTOR
// A shared library with an export, but not the descriptor alias.
extern "C" __attribute__((visibility("default"))) int rtkit_something_else() {
    return 1;
}
#else
RTKIT_EXPORT_PLUGIN(broken_descriptor)
#endif
