// Every refusal of the plugin loader, the search path, and option handling,
// checked against real plugin files (real dlopen).
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "loader_test_support.hpp"
#include "rtkit/detail/io_driver.hpp"
#include "rtkit/plugin_loader.hpp"
#include "test_fifo_options.hpp"

namespace fs = std::filesystem;
using loader_test::contains;
using loader_test::error_of;
using loader_test::scoped_env;

namespace {

const fs::path broken_dir = BROKEN_DIR;
const fs::path builtin_dir = RTKIT_TEST_PLUGIN_DIR;

std::string inspect_error(const fs::path& file) {
    return error_of([&] { rtkit::plugin_loader().inspect(file); });
}

}  // namespace

TEST_CASE("a missing file is refused with its path") {
    const std::string e = inspect_error(broken_dir / "does_not_exist.so");
    CHECK(contains(e, "does_not_exist.so"));
    CHECK(contains(e, "does not exist"));
}

TEST_CASE("a text file named .so is refused with dlerror's reason") {
    const std::string e = inspect_error(broken_dir / "not_a_library.so");
    CHECK(contains(e, (broken_dir / "not_a_library.so").string()));
    CHECK(contains(e, "cannot load"));
    // dlerror's own words: "file too short" or "invalid ELF header".
    CHECK((contains(e, "file too short") || contains(e, "invalid ELF header")));
}

TEST_CASE("a shared library without the descriptor alias is not a plugin") {
    const std::string e = inspect_error(broken_dir / "no_descriptor.so");
    CHECK(contains(e, "no_descriptor.so"));
    CHECK(contains(e, "not an rtkit plugin"));
    CHECK(contains(e, RTKIT_PLUGIN_ALIAS_NAME));
}

TEST_CASE("another ABI major is refused - saying to rebuild") {
    const std::string host = std::to_string(RTKIT_PLUGIN_ABI_MAJOR);
    const std::string e = inspect_error(broken_dir / "wrong_major.so");
    CHECK(contains(e, "wrong_major.so"));
    CHECK(contains(e,
                   "built against rtkit plugin ABI " + std::to_string(RTKIT_PLUGIN_ABI_MAJOR + 1)));
    CHECK(contains(e, "rebuild the plugin against rtkit ABI " + host + ".x"));
}

TEST_CASE("a plugin of an older major - under that major's alias - is refused by its version") {
    const std::string e = inspect_error(broken_dir / "old_major.so");
    CHECK(contains(e, "old_major.so"));
    CHECK(contains(e, "built against rtkit plugin ABI 1.0"));
    CHECK(contains(e, "rebuild the plugin against rtkit ABI " +
                          std::to_string(RTKIT_PLUGIN_ABI_MAJOR) + ".x"));
    CHECK_FALSE(contains(e, "not an rtkit plugin"));
}

TEST_CASE("a descriptor whose factory makes another kind of object is refused before use") {
    const rtkit::plugin_loader loader({broken_dir});
    // Its descriptor passes every check: only the object can tell.
    CHECK(loader.inspect(broken_dir / "lying_kind.so").kind == RTKIT_PLUGIN_TIMER);
    const std::string e =
        error_of([&] { (void)loader.create<rtkit::timer_driver>(broken_dir / "lying_kind.so"); });
    CHECK(contains(e, "lying_kind.so"));
    CHECK(contains(e, "the descriptor declares a timer"));
    CHECK(contains(e, "its factory made a reactor object"));
}

TEST_CASE("a newer ABI minor is refused") {
    const std::string e = inspect_error(broken_dir / "newer_minor.so");
    CHECK(contains(e, "newer_minor.so"));
    CHECK(contains(e, "newer than this rtkit"));
}

TEST_CASE("a descriptor smaller than its ABI requires is refused") {
    const std::string e = inspect_error(broken_dir / "short_descriptor.so");
    CHECK(contains(e, "short_descriptor.so"));
    CHECK(contains(e, "16-byte descriptor"));
}

TEST_CASE("another C++ toolchain is refused") {
    const std::string e = inspect_error(broken_dir / "wrong_toolchain.so");
    CHECK(contains(e, "wrong_toolchain.so"));
    CHECK(contains(e, "'msvc/v143'"));
    CHECK(contains(e, RTKIT_TOOLCHAIN_TAG));
}

TEST_CASE("an unknown kind is refused") {
    const std::string e = inspect_error(broken_dir / "unknown_kind.so");
    CHECK(contains(e, "unknown_kind.so"));
    CHECK(contains(e, "unknown kind 42"));
}

TEST_CASE("a factory that throws is reported as a plugin that failed to start") {
    const fs::path file = broken_dir / "throwing_factory.so";
    const rtkit::plugin_loader loader;
    CHECK(loader.inspect(file).name == "broken");  // its descriptor is fine
    const std::string e = error_of([&] { loader.create<rtkit::reactor>(file); });
    CHECK(contains(e, "plugin 'broken'"));
    CHECK(contains(e, file.string()));
    CHECK(contains(e, "failed to start: cannot open /dev/fake-device"));
}

TEST_CASE("a valid plugin of another kind is refused by kind - before it is created") {
    const fs::path wheel = builtin_dir / "rtkit_timer_wheel.so";
    const std::string e = error_of([&] { rtkit::plugin_loader().create<rtkit::reactor>(wheel); });
    CHECK(contains(e, wheel.string()));
    CHECK(contains(e, "is a timer plugin named 'wheel', expected a reactor"));
}

TEST_CASE("the built-in directory is beside the kernel library and needs no configuration") {
    CHECK(fs::equivalent(rtkit::plugin_loader::builtin_dir(), builtin_dir));
    const rtkit::plugin_loader loader;
    REQUIRE_FALSE(loader.search_path().empty());
    CHECK(fs::equivalent(loader.search_path().front(), builtin_dir));
    for (const auto& [kind, name] :
         {std::pair{RTKIT_PLUGIN_REACTOR, "epoll"}, std::pair{RTKIT_PLUGIN_TIMER, "wheel"},
          std::pair{RTKIT_PLUGIN_TIMER, "heap"}, std::pair{RTKIT_PLUGIN_LANES, "three_lane"},
          std::pair{RTKIT_PLUGIN_LANES, "fifo"}, std::pair{RTKIT_PLUGIN_LANES, "lab"}}) {
        const fs::path file = loader.find(kind, name);
        CHECK(fs::equivalent(file.parent_path(), builtin_dir));
        const rtkit::plugin_info info = loader.inspect(file);
        CHECK(info.name == name);
        CHECK(info.kind == kind);
        CHECK(info.abi_major == RTKIT_PLUGIN_ABI_MAJOR);
    }
    CHECK(loader.create_by_name<rtkit::timer_driver>("wheel"));
    CHECK(loader.create_by_name<rtkit::timer_driver>("heap"));
    CHECK(loader.create_by_name<rtkit::lane_policy>("three_lane"));
    CHECK(loader.create_by_name<rtkit::lane_policy>("fifo"));
    CHECK(loader.create_by_name<rtkit::lane_policy>("lab"));
}

TEST_CASE("an object keeps its library loaded after the loader is gone") {
    const fs::path file = builtin_dir / "rtkit_reactor_epoll.so";
    std::shared_ptr<rtkit::reactor> reactor;
    {
        const rtkit::plugin_loader loader;
        reactor = loader.create_by_name<rtkit::reactor>("epoll");
    }
    REQUIRE(reactor);
    void* still_loaded = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD);
    CHECK(still_loaded != nullptr);
    if (still_loaded) dlclose(still_loaded);
    // Its code still runs: a real registration and poll, through the kernel's side.
    int fds[2];
    REQUIRE(pipe2(fds, O_NONBLOCK) == 0);
    {
        rtkit::detail::io_driver io(std::move(reactor), "epoll");
        const rtkit::io_token t = io.add(fds[0], rtkit::interest::read);
        REQUIRE(write(fds[1], "x", 1) == 1);
        io.poll(std::chrono::milliseconds(100));
        CHECK((io.latched(t, rtkit::interest::read) & rtkit::ready::readable) != 0);
        io.remove(t);
    }  // destroyed by the plugin's own code, then the library is released
    close(fds[0]);
    close(fds[1]);
}

TEST_CASE("an unknown name lists the known plugins of that kind and the search path") {
    const std::string e =
        error_of([] { rtkit::plugin_loader().find(RTKIT_PLUGIN_REACTOR, "kqueue_nope"); });
    CHECK(contains(e, "no reactor plugin named 'kqueue_nope'"));
    CHECK(contains(e, "epoll"));
    CHECK(contains(e, builtin_dir.string()));
    CHECK_FALSE(contains(e, "wheel"));  // only reactors are listed
    CHECK(contains(error_of([] { rtkit::plugin_loader().find(RTKIT_PLUGIN_LANES, "../x"); }),
                   "not a valid lanes plugin name"));
}

TEST_CASE("list() shows loadable plugins and skips broken files") {
    const rtkit::plugin_loader loader({broken_dir});
    bool epoll = false;
    for (const rtkit::plugin_info& info : loader.list()) {
        epoll = epoll || info.name == "epoll";
        const std::string stem = info.file.stem().string();
        // Only running a factory tells these two are broken; list() runs none.
        const bool fails_when_created = stem == "throwing_factory" || stem == "lying_kind";
        CHECK_MESSAGE((info.file.parent_path() != broken_dir || fails_when_created),
                      "a broken file was listed: ", info.file);
    }
    CHECK(epoll);
}

TEST_CASE("extra_dirs and RTKIT_PLUGIN_PATH find plugins in other directories") {
    CHECK(contains(error_of([] { rtkit::plugin_loader().find(RTKIT_PLUGIN_LANES, "test_fifo"); }),
                   "no lanes plugin named 'test_fifo'"));
    SUBCASE("extra_dirs, by conventional file name") {
        const rtkit::plugin_loader loader({EXTRA_DIR});
        CHECK(loader.find(RTKIT_PLUGIN_LANES, "test_fifo") ==
              fs::path(EXTRA_DIR) / "rtkit_lanes_test_fifo.so");
        CHECK(loader.create_by_name<rtkit::lane_policy>("test_fifo"));
    }
    SUBCASE("RTKIT_PLUGIN_PATH, colon-separated, after extra_dirs") {
        const scoped_env env("RTKIT_PLUGIN_PATH", "/nonexistent/rtkit::" EXTRA_DIR);
        const rtkit::plugin_loader loader({SCAN_DIR});
        const auto& path = loader.search_path();
        REQUIRE(path.size() == 4);
        CHECK(path[1] == fs::path(SCAN_DIR));
        CHECK(path[2] == fs::path("/nonexistent/rtkit"));
        CHECK(path[3] == fs::path(EXTRA_DIR));
        CHECK(loader.find(RTKIT_PLUGIN_LANES, "test_fifo") ==
              fs::path(EXTRA_DIR) / "rtkit_lanes_test_fifo.so");
    }
}

TEST_CASE("the search path opens only files named as plugins are - and lists the others") {
    const scoped_env no_path("RTKIT_PLUGIN_PATH", nullptr);
    const scoped_env not_yet("RTKIT_TEST_BYSTANDER_OPENED", nullptr);
    const rtkit::plugin_loader loader({SCAN_DIR});
    // A plugin under another file name is not found by its name...
    const std::string e = error_of([&] { loader.find(RTKIT_PLUGIN_LANES, "scanned_fifo"); });
    CHECK(contains(e, "no lanes plugin named 'scanned_fifo'"));
    CHECK(contains(e, "searched for rtkit_lanes_scanned_fifo.so in: "));
    // ...and a survey of the path says what each file is.
    const rtkit::search_path_survey survey = loader.survey();
    for (const rtkit::plugin_info& info : survey.plugins)
        CHECK(info.file.parent_path() != fs::path(SCAN_DIR));
    REQUIRE(survey.refused.size() == 1);
    CHECK(survey.refused[0].file == fs::path(SCAN_DIR) / "rtkit_lanes_misnamed.so");
    CHECK(contains(survey.refused[0].reason,
                   "holds a lanes plugin named 'scanned_fifo', which is found only as "
                   "rtkit_lanes_scanned_fifo.so; rename the file"));
    CHECK(survey.skipped == std::vector<fs::path>{fs::path(SCAN_DIR) / "custom_name.so",
                                                  fs::path(SCAN_DIR) / "libbystander.so"});
    CHECK(loader.list().size() == survey.plugins.size());
    // Neither a search nor a survey ran the ordinary library's start-up code.
    CHECK(std::getenv("RTKIT_TEST_BYSTANDER_OPENED") == nullptr);
    // A file given by its path may have any name.
    CHECK(loader.inspect(fs::path(SCAN_DIR) / "custom_name.so").name == "scanned_fifo");
}

TEST_CASE("options are validated against the declared ones") {
    const rtkit::plugin_loader loader;
    SUBCASE("unknown key names the valid ones") {
        const std::string e = error_of([&] {
            loader.create_by_name<rtkit::reactor>("epoll", {{"events_per_pol", std::int64_t{8}}});
        });
        CHECK(contains(e, "has no option 'events_per_pol'"));
        CHECK(contains(e, "valid options: events_per_poll"));
    }
    SUBCASE("wrong type") {
        const std::string e = error_of([&] {
            loader.create_by_name<rtkit::reactor>("epoll", {{"events_per_poll", std::string("x")}});
        });
        CHECK(contains(e, "'events_per_poll'"));
        CHECK(contains(e, "must be an integer, not a string"));
    }
    SUBCASE("out of range, both ends") {
        for (const std::int64_t bad : {std::int64_t{0}, std::int64_t{65537}}) {
            const std::string e = error_of([&] {
                loader.create_by_name<rtkit::reactor>("epoll", {{"events_per_poll", bad}});
            });
            CHECK(contains(e, "out of its range [1, 65536]"));
        }
        CHECK(
            loader.create_by_name<rtkit::reactor>("epoll", {{"events_per_poll", std::int64_t{1}}}));
    }
}

TEST_CASE("string and bool options - defaults and configured values reach the factory") {
    const rtkit::plugin_loader loader({EXTRA_DIR});
    auto received = [](const std::shared_ptr<rtkit::lane_policy>& p) {
        return *static_cast<test_fifo_options*>(p->query_interface(test_fifo_options_interface));
    };
    const test_fifo_options defaults =
        received(loader.create_by_name<rtkit::lane_policy>("test_fifo"));
    CHECK(defaults.mode == "fifo");
    CHECK(defaults.verbose == false);
    CHECK(defaults.batch == 4);

    const test_fifo_options configured = received(loader.create_by_name<rtkit::lane_policy>(
        "test_fifo",
        {{"mode", std::string("lifo")}, {"verbose", true}, {"batch", std::int64_t{64}}}));
    CHECK(configured.mode == "lifo");
    CHECK(configured.verbose == true);
    CHECK(configured.batch == 64);

    CHECK(contains(
        error_of([&] {
            loader.create_by_name<rtkit::lane_policy>("test_fifo", {{"mode", std::string("fif")}});
        }),
        "'fif', which is not one of fifo|lifo"));
    CHECK(contains(
        error_of([&] {
            loader.create_by_name<rtkit::lane_policy>("test_fifo", {{"verbose", std::int64_t{1}}});
        }),
        "must be a boolean, not an integer"));
}

TEST_CASE("kind_name") {
    CHECK(rtkit::kind_name(RTKIT_PLUGIN_REACTOR) == "reactor");
    CHECK(rtkit::kind_name(RTKIT_PLUGIN_TIMER) == "timer");
    CHECK(rtkit::kind_name(RTKIT_PLUGIN_LANES) == "lanes");
}
