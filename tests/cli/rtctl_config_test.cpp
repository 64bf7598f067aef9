// rtctl config check|show|default and rtctl plugins list|info, end to end:
// the real binary, the real plugin files.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "rtctl_process.hpp"

namespace {

const std::string configs = "tests/cli/configs/";
/// Where the built-in plugins are; paths in the output are replaced by "PLUGINS".
const std::string plugin_dir = RTKIT_PLUGIN_DIR;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

}  // namespace

TEST_CASE("config check - a valid file exits 0") {
    const auto r = run_rtctl({"config", "check", "config/default.toml"});
    CHECK(r.status == 0);
    CHECK(r.out == "config/default.toml: ok\n");
    CHECK(r.err == "");
}

TEST_CASE("config check - every plugin mistake with file:line:column and exit 2") {
    const auto r = run_rtctl({"config", "check", configs + "plugin_typos.toml"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    const std::string f = configs + "plugin_typos.toml";
    CHECK(replace_all(r.err, plugin_dir, "PLUGINS") ==
          f +
              ":3:10: error: unknown reactor plugin 'epol' in 'reactor.plugin'; did you mean "
              "'epoll'? (known reactor plugins: " +
              (contains(r.err, "uring") ? std::string("epoll, uring") : std::string("epoll")) +
              "; searched: PLUGINS)\n" + f +
              ":6:1: error: unknown option 'events_per_pol' in [reactor.epoll]; did you mean "
              "'events_per_poll'? (valid: events_per_poll)\n" +
              f +
              ":9:11: error: option 'tick_us' in [timer.wheel] is 0, out of its range "
              "10..1000000 (default: 1000)\n" +
              f +
              ":12:23: error: option 'cancel_streak_limit' in [lanes.three_lane] must be an "
              "integer, not a string (default: 16)\n");
}

TEST_CASE("config check - every sample in examples/configs is valid") {
    std::vector<std::string> samples;
    for (const auto& entry :
         std::filesystem::directory_iterator(RTKIT_SOURCE_DIR "/examples/configs"))
        if (entry.path().extension() == ".toml")
            samples.push_back("examples/configs/" + entry.path().filename().string());
    // io_uring, multi_thread, third_party_reactor and tuned at least: an empty glob must not pass.
    CHECK(samples.size() >= 4);
    for (const std::string& sample : samples) {
        CAPTURE(sample);
        const auto r = run_rtctl({"config", "check", sample});
        CHECK(r.err == "");
        CHECK(r.out == sample + ": ok\n");
        CHECK(r.status == 0);
    }
}

TEST_CASE("config check - a missing file exits 2") {
    const auto r = run_rtctl({"config", "check", configs + "nope.toml"});
    CHECK(r.status == 2);
    CHECK(contains(
        r.err, "nope.toml: error: cannot read the configuration file: No such file or directory"));
}

TEST_CASE("config show - defaults filled in and each value's origin") {
    const auto r =
        run_rtctl({"config", "show", configs + "show.toml", "--set", "timer.wheel.tick_us=500"});
    CHECK(r.err == "");
    CHECK(r.status == 0);
    CHECK(r.out == "# effective configuration: --set > RTKIT_* environment > " + configs +
                       "show.toml > defaults\n"
                       "\n"
                       "[runtime]\n"
                       "flavor = \"current_thread\"  # default\n"
                       "workers = 1                # default\n"
                       "clock = \"monotonic\"        # default\n"
                       "name = \"shown\"             # " +
                       configs +
                       "show.toml:2:8\n"
                       "huge_pages = false         # default\n"
                       "poll_before_park_us = 0    # default\n"
                       "\n"
                       "[plugins]\n"
                       "search_path = []        # default\n"
                       "allow_insecure = false  # default\n"
                       "\n"
                       "[blocking]\n"
                       "max_threads = 512      # default\n"
                       "keep_alive_ms = 10000  # default\n"
                       "\n"
                       "[trace]\n"
                       "enabled = false            # default\n"
                       "file = \"rtkit-trace.json\"  # default\n"
                       "buffer_events = 4096       # default\n"
                       "\n"
                       "[reactor]\n"
                       "plugin = \"epoll\"  # default\n"
                       "strict = false    # default\n"
                       "\n"
                       "[reactor.epoll]\n"
                       "events_per_poll = 64  # " +
                       configs +
                       "show.toml:5:19\n"
                       "\n"
                       "[timer]\n"
                       "plugin = \"wheel\"  # default\n"
                       "\n"
                       "[timer.wheel]\n"
                       "tick_us = 500         # --set\n"
                       "levels = 6            # default of plugin wheel\n"
                       "slots_per_level = 64  # default of plugin wheel\n"
                       "\n"
                       "[lanes]\n"
                       "plugin = \"three_lane\"  # default\n"
                       "\n"
                       "[lanes.three_lane]\n"
                       "cancel_streak_limit = 16  # default of plugin three_lane\n"
                       "ready_streak_limit = 16   # default of plugin three_lane\n");
}

TEST_CASE("config show --set - a value in TOML syntax is read as TOML") {
    const auto r = run_rtctl({"config", "show", "--set", R"(reactor.plugin=["uring","epoll"])"});
    CHECK(r.err == "");
    CHECK(r.status == 0);
    CHECK(contains(r.out, "\n[reactor]\nplugin = [\"uring\", \"epoll\"]  # --set\n"));
}

TEST_CASE("config check and run --set - a misspelt plugin option is refused like in a file") {
    const auto check = run_rtctl(
        {"config", "check", "config/default.toml", "--set", "reactor.epoll.events_per_pol=8"});
    CHECK(check.status == 2);
    CHECK(check.out == "");
    CHECK(check.err ==
          "--set:1:15: error: unknown option 'events_per_pol' in [reactor.epoll]; did you mean "
          "'events_per_poll'? (valid: events_per_poll)\n");

    const auto run =
        run_rtctl({"run", "examples/scripts/hello.rts", "--set", "reactor.epoll.events_per_pol=8"});
    CHECK(run.status == 2);
    CHECK(run.out == "");
    CHECK(run.err == check.err);

    const auto unknown_plugin =
        run_rtctl({"config", "check", "config/default.toml", "--set", "reactor.select.wak=pipe"});
    CHECK(unknown_plugin.status == 2);
    CHECK(contains(unknown_plugin.err,
                   "--set:1:9: error: [reactor.select] configures unknown reactor plugin "
                   "'select'"));
}

TEST_CASE("config check --set reactor.strict=false lifts strict = true from the file") {
    const auto alone = run_rtctl({"config", "check", configs + "strict_fallback.toml"});
    CHECK(alone.status == 2);
    CHECK(contains(alone.err, "unknown reactor plugin 'nope'"));
    const auto lifted = run_rtctl(
        {"config", "check", configs + "strict_fallback.toml", "--set", "reactor.strict=false"});
    CHECK(lifted.err == "");
    CHECK(lifted.status == 0);
}

TEST_CASE("config default prints config/default.toml as built in") {
    const auto r = run_rtctl({"config", "default"});
    CHECK(r.status == 0);
    std::ifstream in(RTKIT_SOURCE_DIR "/config/default.toml");
    std::ostringstream text;
    text << in.rdbuf();
    CHECK(r.out == text.str());
}

TEST_CASE("plugins list - name kind version ABI file and description of each built-in") {
    const auto r = run_rtctl({"plugins", "list"});
    CHECK(r.status == 0);
    CHECK(r.err == "");
    const std::string out = replace_all(r.out, plugin_dir, "PLUGINS");
    CHECK(out.rfind("NAME        KIND     VERSION  ABI  FILE", 0) == 0);
    CHECK(contains(out, "\nepoll       reactor  1.0.0    2.0  PLUGINS/rtkit_reactor_epoll.so"));
    CHECK(contains(out, "\nwheel       timer    1.1.0    2.0  PLUGINS/rtkit_timer_wheel.so"));
    CHECK(contains(out, "\nheap        timer    1.0.0    2.0  PLUGINS/rtkit_timer_heap.so"));
    CHECK(contains(out, "\nthree_lane  lanes    2.3.0    2.0  PLUGINS/rtkit_lanes_three_lane.so"));
    CHECK(contains(out, "\nfifo        lanes    1.0.0    2.0  PLUGINS/rtkit_lanes_fifo.so"));
    CHECK(contains(out, "\nlab         lanes    1.0.0    2.0  PLUGINS/rtkit_lanes_lab.so"));
    CHECK(contains(out, "edge-triggered epoll readiness reactor with an eventfd wake"));
    CHECK(contains(out, "\nsearch path (in order):\n  PLUGINS\n"));
}

TEST_CASE("plugins list - a configuration naming a refused plugin lists it as refused and why") {
    // A plugin file others could replace: the loader refuses it, so a
    // configuration that names it does not pass `config check`; `plugins
    // list` is how one finds out why, so it must still answer.
    char dir_template[] = "/tmp/rtctl-refused-XXXXXX";
    REQUIRE(mkdtemp(dir_template) != nullptr);
    const std::filesystem::path dir = dir_template;
    const std::filesystem::path loose = dir / "rtkit_reactor_loose.so";
    std::filesystem::copy_file(plugin_dir + "/rtkit_reactor_epoll.so", loose);
    std::filesystem::permissions(loose, std::filesystem::perms(0664));
    const std::filesystem::path toml = dir / "loose.toml";
    std::ofstream(toml) << "[plugins]\nsearch_path = [\".\"]\n[reactor]\nplugin = \"loose\"\n";

    const auto check = run_rtctl({"config", "check", toml.string()});
    CHECK(check.status == 2);
    CHECK(contains(check.err, "writable by group"));

    const auto list = run_rtctl({"plugins", "--config", toml.string(), "list"});
    CHECK(list.err == "");
    CHECK(list.status == 0);
    CHECK(contains(list.out, "\nepoll       reactor  "));
    CHECK(contains(list.out, "\nrefused:\n  " + loose.string() + ": refusing plugin file '" +
                                 loose.string() + "': it is writable by group"));
    CHECK(contains(list.out,
                   "\nsearch path (in order):\n  " + plugin_dir + "\n  " + dir.string() + "\n"));

    const auto info = run_rtctl({"plugins", "--config", toml.string(), "info", "epoll"});
    CHECK(info.err == "");
    CHECK(info.status == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("plugins info - the descriptor and every option") {
    const auto r = run_rtctl({"plugins", "info", "three_lane"});
    CHECK(r.status == 0);
    const std::string out = replace_all(r.out, plugin_dir, "PLUGINS");
    CHECK(out.rfind("name:         three_lane\n"
                    "kind:         lanes\n"
                    "version:      2.3.0\n"
                    "ABI:          2.0\n"
                    "file:         PLUGINS/rtkit_lanes_three_lane.so\n",
                    0) == 0);
    CHECK(contains(out,
                   "options (in [lanes.three_lane]):\n"
                   "  NAME                 TYPE     DEFAULT  VALUES   HELP\n"
                   "  cancel_streak_limit  integer  16       1..1024  "));
}

TEST_CASE("plugins info - test-only options are hidden unless --test-options asks for them") {
    const auto plain = run_rtctl({"plugins", "info", "uring"});
    CHECK(plain.status == 0);
    CHECK(contains(plain.out, "\n  entries "));
    CHECK_FALSE(contains(plain.out, "fail_probe_errno"));
    CHECK(contains(plain.out, "\n(2 test-only options hidden: --test-options shows them)\n"));

    const auto all = run_rtctl({"plugins", "info", "uring", "--test-options"});
    CHECK(all.status == 0);
    CHECK(contains(all.out,
                   "\n  test_fail_probe_errno  integer  0        0..4095      [test only] "
                   "fault injection"));
    CHECK_FALSE(contains(all.out, "hidden"));
}

TEST_CASE("config show - test-only options are hidden unless set or asked for") {
    const auto plain = run_rtctl({"config", "show", "--set", "reactor.plugin=uring"});
    CHECK(plain.status == 0);
    CHECK(contains(plain.out, "\n[reactor.uring]\nentries = 256 "));
    CHECK_FALSE(contains(plain.out, "fail_probe_errno"));

    const auto asked =
        run_rtctl({"config", "show", "--set", "reactor.plugin=uring", "--test-options"});
    CHECK(contains(asked.out, "\ntest_fail_probe_errno = 0 "));

    const auto set = run_rtctl({"config", "show", "--set", "reactor.plugin=uring", "--set",
                                "reactor.uring.test_fail_probe_errno=1"});
    CHECK(set.err == "");
    CHECK(contains(set.out, "\ntest_fail_probe_errno = 1 "));
}

TEST_CASE("plugins info - an unknown name suggests the closest and exits 2") {
    const auto r = run_rtctl({"plugins", "info", "epol"});
    CHECK(r.status == 2);
    CHECK(r.out == "");
    CHECK(r.err ==
          "rtctl plugins info: no plugin named 'epol'; did you mean 'epoll'? (see 'rtctl plugins "
          "list')\n");
}
