// The loader's descriptor checks on descriptors built in memory: the
// malformed declarations a compiled plugin rarely has (no name, a null
// factory, an option with no name or an unknown type), and the order of the
// checks. No library is loaded and no function of a descriptor is called.
#include <doctest/doctest.h>

#include "loader_test_support.hpp"
#include "plugin_descriptor_check.hpp"

using loader_test::contains;
using loader_test::error_of;

namespace {

rtkit::plugin_object* never_create(const rtkit_plugin_args*) {
    FAIL("the descriptor checks called create");
    return nullptr;
}
void never_destroy(rtkit::plugin_object*) {
    FAIL("the descriptor checks called destroy");
}

constexpr rtkit_option_decl two_options[] = {
    {"depth", RTKIT_OPTION_INT, "4", 1, 8, nullptr, "how deep"},
    {"mode", RTKIT_OPTION_STRING, "\"fast\"", 0, 0, "fast|slow", "which mode"},
};

/// A descriptor the checks accept, to break one field at a time.
rtkit_plugin_descriptor valid_descriptor() {
    return rtkit_plugin_descriptor{RTKIT_PLUGIN_ABI_MAJOR,
                                   RTKIT_PLUGIN_ABI_MINOR,
                                   sizeof(rtkit_plugin_descriptor),
                                   RTKIT_PLUGIN_TIMER,
                                   RTKIT_TOOLCHAIN_TAG,
                                   "made_up",
                                   "2.1.0",
                                   "a descriptor built by a test",
                                   two_options,
                                   2,
                                   &never_create,
                                   &never_destroy,
                                   {}};
}

std::string refusal(const rtkit_plugin_descriptor& d) {
    return error_of([&] { rtkit::detail::check_descriptor(d, "/plugins/made_up.so"); });
}

}  // namespace

TEST_CASE("descriptor check: a valid descriptor is described without calling it") {
    const rtkit::plugin_info info =
        rtkit::detail::check_descriptor(valid_descriptor(), "/plugins/made_up.so");
    CHECK(info.name == "made_up");
    CHECK(info.kind == RTKIT_PLUGIN_TIMER);
    CHECK(info.version == "2.1.0");
    CHECK(info.file == "/plugins/made_up.so");
    REQUIRE(info.options.size() == 2);
    CHECK(info.options[0].name == "depth");
    CHECK(info.options[0].max_value == 8);
    CHECK(info.options[1].allowed == "fast|slow");
}

TEST_CASE("descriptor check: a missing or empty name is refused") {
    rtkit_plugin_descriptor d = valid_descriptor();
    d.name = nullptr;
    CHECK(contains(refusal(d), "'/plugins/made_up.so' has a malformed descriptor: it has no name"));
    d.name = "";
    CHECK(contains(refusal(d), "it has no name"));
}

TEST_CASE("descriptor check: a null create or destroy is refused") {
    rtkit_plugin_descriptor d = valid_descriptor();
    d.create = nullptr;
    CHECK(contains(refusal(d), "its create or destroy function is null"));
    d = valid_descriptor();
    d.destroy = nullptr;
    CHECK(contains(refusal(d), "its create or destroy function is null"));
}

TEST_CASE("descriptor check: malformed option declarations are refused") {
    rtkit_plugin_descriptor d = valid_descriptor();
    d.options = nullptr;
    CHECK(contains(refusal(d), "option_count > 0 but options is null"));

    rtkit_option_decl options[] = {two_options[0], two_options[1]};
    d.options = options;
    options[1].name = nullptr;
    CHECK(contains(refusal(d), "option #1 has no name"));
    options[1].name = "mode";
    options[1].type = 7;
    CHECK(contains(refusal(d), "option 'mode' has unknown type 7"));
}

TEST_CASE("descriptor check: the version fields are checked before anything else is read") {
    // A descriptor of another major may have any layout after its version
    // fields: the refusal must not depend on them.
    rtkit_plugin_descriptor d = valid_descriptor();
    d.abi_major = RTKIT_PLUGIN_ABI_MAJOR + 1;
    d.name = nullptr;
    d.kind = 99;
    CHECK(contains(refusal(d), "was built against rtkit plugin ABI " +
                                   std::to_string(RTKIT_PLUGIN_ABI_MAJOR + 1) + ".0"));
    d = valid_descriptor();
    d.descriptor_size = 16;
    d.toolchain = nullptr;
    CHECK(contains(refusal(d), "has a 16-byte descriptor"));
    d = valid_descriptor();
    d.toolchain = nullptr;
    CHECK(contains(refusal(d), "was built with C++ toolchain ''"));
}
