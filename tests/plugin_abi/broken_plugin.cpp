// One deliberately broken plugin per build: the CMake target picks the defect
// with a compile definition. Everything not overridden is valid.
#include <stdexcept>

#include "rtkit/plugin.hpp"

#ifdef BROKEN_OLD_MAJOR
// Built as a plugin of ABI 1.0 would be: its major, under its major's alias.
#define ABI_MAJOR_VALUE 1u
#define ABI_MINOR_VALUE 0u
#endif
#ifdef BROKEN_LYING_KIND
// Says it is a timer; its factory makes a reactor.
#define KIND_VALUE RTKIT_PLUGIN_TIMER
#endif

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

#ifdef BROKEN_LYING_KIND
/// A reactor that only ever answers identity(): the loader must refuse it
/// before calling anything else.
class never_used_reactor final : public rtkit::reactor {
    [[noreturn]] static void used() { throw std::logic_error("the loader used a lying plugin"); }

  public:
    void add(int, rtkit::io_token) override { used(); }
    void watch(int, rtkit::io_token, rtkit::interest) override { used(); }
    void remove(int, rtkit::io_token) noexcept override {}
    std::size_t poll(rtkit::duration, rtkit::readiness_sink&) override { used(); }
    void wake() noexcept override {}
};
rtkit::plugin_object* create(const rtkit_plugin_args*) {
    return new never_used_reactor;
}
void destroy(rtkit::plugin_object* object) {
    delete object;
}
#else
// Every other variant's factory throws: only the throwing_factory variant gets
// far enough for the loader to call it.
rtkit::plugin_object* create(const rtkit_plugin_args*) {
    throw std::runtime_error("cannot open /dev/fake-device");
}
void destroy(rtkit::plugin_object*) {}
#endif

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
    &create,
    &destroy,
    {}};

}  // namespace

#ifdef BROKEN_NO_DESCRIPTOR
// A shared library with an export, but not the descriptor alias.
extern "C" __attribute__((visibility("default"))) int rtkit_something_else() {
    return 1;
}
#elif defined(BROKEN_OLD_MAJOR)
BOOST_DLL_ALIAS(broken_descriptor, rtkit_plugin_descriptor_v1)
#else
RTKIT_EXPORT_PLUGIN(broken_descriptor)
#endif
