// A plugin file, or its directory, writable by group or others is refused
// before dlopen runs any of its code, unless the user opts in.
#include <sys/stat.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "loader_test_support.hpp"
#include "rtkit/config/load.hpp"
#include "rtkit/rtkit.hpp"

namespace fs = std::filesystem;
using loader_test::contains;
using loader_test::error_of;
using loader_test::scoped_env;

namespace {

/// A fresh directory holding a copy of the test_fifo plugin, removed at the end.
struct plugin_copy {
    plugin_copy() {
        std::string pattern = (fs::temp_directory_path() / "rtkit-perm-XXXXXX").string();
        dir = mkdtemp(pattern.data());
        file = dir / "rtkit_lanes_test_fifo.so";
        fs::copy_file(fs::path(EXTRA_DIR) / "rtkit_lanes_test_fifo.so", file);
        chmod(dir.c_str(), 0755);
        chmod(file.c_str(), 0755);
    }
    ~plugin_copy() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    fs::path dir;
    fs::path file;
};

}  // namespace

TEST_CASE("a plugin file writable by others is refused - naming the fix") {
    const scoped_env strict("RTKIT_ALLOW_INSECURE_PLUGINS", nullptr);
    const plugin_copy copy;
    CHECK(rtkit::plugin_loader().inspect(copy.file).name == "test_fifo");  // 0755 is fine
    REQUIRE(chmod(copy.file.c_str(), 0757) == 0);
    const std::string e = error_of([&] { rtkit::plugin_loader().inspect(copy.file); });
    CHECK(contains(e, "refusing plugin file '" + copy.file.string() + "'"));
    CHECK(contains(e, "it is writable by others"));
    CHECK(contains(e, "chmod go-w " + copy.file.string()));
    CHECK(contains(e, "[plugins] allow_insecure = true"));
    CHECK(contains(e, "RTKIT_ALLOW_INSECURE_PLUGINS=1"));
}

TEST_CASE("a plugin file writable by its group is refused") {
    const scoped_env strict("RTKIT_ALLOW_INSECURE_PLUGINS", nullptr);
    const plugin_copy copy;
    REQUIRE(chmod(copy.file.c_str(), 0775) == 0);
    CHECK(contains(error_of([&] { rtkit::plugin_loader().inspect(copy.file); }),
                   "it is writable by group"));
}

TEST_CASE("a plugin in a directory writable by group and others is refused - also by name") {
    const scoped_env strict("RTKIT_ALLOW_INSECURE_PLUGINS", nullptr);
    const plugin_copy copy;
    REQUIRE(chmod(copy.dir.c_str(), 0777) == 0);
    const std::string e = error_of([&] { rtkit::plugin_loader().inspect(copy.file); });
    CHECK(contains(e, "its directory '" + copy.dir.string() + "' is writable by group and others"));
    const std::string by_name = error_of(
        [&] { rtkit::plugin_loader({copy.dir}).create_by_name<rtkit::lane_policy>("test_fifo"); });
    CHECK(contains(by_name, "no lanes plugin named 'test_fifo'"));
    CHECK(contains(by_name, "writable by group and others"));  // the reason is kept
}

TEST_CASE("the user can opt in - by policy or by RTKIT_ALLOW_INSECURE_PLUGINS=1") {
    const plugin_copy copy;
    REQUIRE(chmod(copy.dir.c_str(), 0777) == 0);
    REQUIRE(chmod(copy.file.c_str(), 0777) == 0);
    {
        const scoped_env strict("RTKIT_ALLOW_INSECURE_PLUGINS", nullptr);
        const rtkit::plugin_loader loader({copy.dir}, rtkit::plugin_load_policy{true});
        CHECK(loader.policy().allow_insecure_permissions);
        CHECK(loader.create_by_name<rtkit::lane_policy>("test_fifo"));
    }
    {
        const scoped_env allow("RTKIT_ALLOW_INSECURE_PLUGINS", "1");
        const rtkit::plugin_loader loader({copy.dir});
        CHECK(loader.policy().allow_insecure_permissions);
        CHECK(loader.inspect(copy.file).name == "test_fifo");
    }
    {
        const scoped_env other("RTKIT_ALLOW_INSECURE_PLUGINS", "yes");  // only "1" opts in
        CHECK_FALSE(rtkit::plugin_loader().policy().allow_insecure_permissions);
    }
}

TEST_CASE("[plugins] allow_insecure reaches the runtime - refused by default - loaded when true") {
    const scoped_env strict("RTKIT_ALLOW_INSECURE_PLUGINS", nullptr);
    const plugin_copy copy;
    REQUIRE(chmod(copy.dir.c_str(), 0777) == 0);
    rtkit::runtime_config config;
    config.plugin_search_path = {copy.dir};
    config.lanes.preference = {"test_fifo"};
    config.lanes.strict = true;  // no fallback to three_lane: test_fifo or nothing

    const std::string e = error_of([&] { rtkit::runtime refused(config); });
    CHECK(contains(e, "no lanes plugin named 'test_fifo'"));
    CHECK(contains(e, "writable by group and others"));
    CHECK(contains(e, "[plugins] allow_insecure = true"));

    config.allow_insecure_plugins = true;
    rtkit::runtime rt(config);
    CHECK(contains(rt.description().lanes, "test_fifo (" + copy.file.string() + ")"));
    // The runtime really runs on it.
    CHECK(rt.block_on([]() -> rtkit::task<int> { co_return 7; }()) == 7);
}

TEST_CASE("[plugins] allow_insecure in TOML - the config check agrees with the runtime") {
    const scoped_env strict("RTKIT_ALLOW_INSECURE_PLUGINS", nullptr);
    const plugin_copy copy;
    REQUIRE(chmod(copy.dir.c_str(), 0777) == 0);
    auto toml = [&](const std::string& allow_line) {
        return "[plugins]\n" + allow_line + "search_path = [\"" + copy.dir.string() +
               "\"]\n[lanes]\nplugin = \"test_fifo\"\n";
    };

    std::string refused;
    try {
        rtkit::config::load_string(toml(""), "rt.toml");
    } catch (const rtkit::config::config_error& e) {
        refused = e.what();
    }
    CHECK(contains(refused, "rt.toml:4:10: error: unknown lanes plugin 'test_fifo'"));
    // The file named like the plugin is there: the error says why it does not count.
    CHECK(contains(refused, "refusing plugin file '" + copy.file.string() + "'"));
    CHECK(contains(refused, "[plugins] allow_insecure = true"));

    const auto config = rtkit::config::load_string(toml("allow_insecure = true\n"), "rt.toml");
    CHECK(config.allow_insecure_plugins);
    CHECK(config.lanes.preference == std::vector<std::string>{"test_fifo"});
}
