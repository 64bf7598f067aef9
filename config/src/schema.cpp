#include "rtkit/config/schema.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>

namespace rtkit::config {
namespace {

const std::string& as_string(const config_value& v) {
    return std::get<std::string>(v);
}
const std::vector<std::string>& as_list(const config_value& v) {
    return std::get<std::vector<std::string>>(v);
}
std::vector<std::string> path_strings(const std::vector<std::filesystem::path>& paths) {
    return {paths.begin(), paths.end()};
}

constexpr std::array table_specs{
    table_spec{"runtime", "how the runtime runs its tasks", nullptr},
    table_spec{"plugins", "where plugin files are found", nullptr},
    table_spec{"blocking", "the pool of threads that runs blocking calls and name resolution",
               nullptr},
    table_spec{"trace", "trace events, written as Chrome trace-event JSON (kernel/README.md)",
               nullptr},
    table_spec{"reactor", "the I/O reactor plugin; [reactor.NAME] holds NAME's options",
               &runtime_config::reactor},
    table_spec{"timer", "the timer driver plugin; [timer.NAME] holds NAME's options",
               &runtime_config::timer},
    table_spec{"lanes", "the lane policy plugin; [lanes.NAME] holds NAME's options",
               &runtime_config::lanes},
};

// Defaults here must equal runtime_config{}; a test loads them and compares.
const std::array key_specs{
    key_spec{"runtime", "flavor", value_type::string, R"("current_thread")",
             "current_thread|multi_thread",
             "current_thread: one worker that block_on borrows; multi_thread: `workers` threads "
             "that steal work from each other",
             [](runtime_config& c, const config_value& v) { c.flavor = as_string(v); },
             [](const runtime_config& c) { return config_value(c.flavor); }},
    // Checked here for range; the kernel refuses anything but 1 for current_thread.
    key_spec{"runtime", "workers", value_type::integer, "1", "",
             "worker threads: exactly 1 for current_thread (the kernel refuses more); "
             "multi_thread runs this many, 0 = one per CPU",
             [](runtime_config& c, const config_value& v) {
                 c.workers = static_cast<int>(std::get<std::int64_t>(v));
             },
             [](const runtime_config& c) { return config_value(std::int64_t{c.workers}); }, 0,
             1024},
    key_spec{"runtime", "clock", value_type::string, R"("monotonic")", "monotonic|virtual",
             "monotonic: the system's clock; virtual: starts at zero and jumps to the next timer "
             "whenever nothing can run and no I/O is awaited (current_thread only)",
             [](runtime_config& c, const config_value& v) { c.clock = as_string(v); },
             [](const runtime_config& c) { return config_value(c.clock); }},
    key_spec{"runtime", "name", value_type::string, R"("rtkit")", "",
             "shown in diagnostics and thread names",
             [](runtime_config& c, const config_value& v) { c.name = as_string(v); },
             [](const runtime_config& c) { return config_value(c.name); }},
    key_spec{"runtime", "huge_pages", value_type::boolean, "false", "",
             "ask for transparent huge pages for the task stores and the frames of new tasks: "
             "faster mass spawning when the system has them at hand, but each new 2 MiB is one "
             "fault of that size on a worker",
             [](runtime_config& c, const config_value& v) { c.huge_pages = std::get<bool>(v); },
             [](const runtime_config& c) { return config_value(c.huge_pages); }},
    key_spec{"runtime", "poll_before_park_us", value_type::integer, "0", "",
             "microseconds the current_thread worker, with nothing to run, keeps polling the "
             "reactor before it sleeps in it (only while I/O is registered, never past the next "
             "timer): a busy server is not woken for each request, for CPU spent polling (the "
             "starting value: runtime::set_poll_before_park changes it while the runtime runs)",
             [](runtime_config& c, const config_value& v) {
                 c.poll_before_park = std::chrono::microseconds(std::get<std::int64_t>(v));
             },
             [](const runtime_config& c) {
                 return config_value(std::int64_t{c.poll_before_park.count()});
             },
             0, 1'000'000},
    key_spec{
        "plugins", "search_path", value_type::path_list, "[]", "",
        "extra plugin directories, searched after the built-in one; relative paths are "
        "relative to the TOML file",
        [](runtime_config& c, const config_value& v) {
            c.plugin_search_path.assign(as_list(v).begin(), as_list(v).end());
        },
        [](const runtime_config& c) { return config_value(path_strings(c.plugin_search_path)); }},
    key_spec{"plugins", "allow_insecure", value_type::boolean, "false", "",
             "load plugin files writable by group or others, or in such a directory (refused "
             "by default: whoever can write them can run code in this process)",
             [](runtime_config& c, const config_value& v) {
                 c.allow_insecure_plugins = std::get<bool>(v);
             },
             [](const runtime_config& c) { return config_value(c.allow_insecure_plugins); }},
    key_spec{
        "blocking", "max_threads", value_type::integer, "512", "",
        "the most threads running blocking calls at once; more calls wait in line",
        [](runtime_config& c, const config_value& v) {
            c.blocking.max_threads = static_cast<int>(std::get<std::int64_t>(v));
        },
        [](const runtime_config& c) { return config_value(std::int64_t{c.blocking.max_threads}); },
        1, 65536},
    key_spec{"blocking", "keep_alive_ms", value_type::integer, "10000", "",
             "milliseconds a blocking pool thread with nothing to run waits for a call before "
             "it ends",
             [](runtime_config& c, const config_value& v) {
                 c.blocking.keep_alive = std::chrono::milliseconds(std::get<std::int64_t>(v));
             },
             [](const runtime_config& c) {
                 return config_value(std::int64_t{c.blocking.keep_alive.count()});
             },
             0, 86'400'000},
    key_spec{"trace", "enabled", value_type::boolean, "false", "",
             "record what the workers do (spawns, polls, wakes, timers, I/O) into `file`",
             [](runtime_config& c, const config_value& v) { c.trace.enabled = std::get<bool>(v); },
             [](const runtime_config& c) { return config_value(c.trace.enabled); }},
    key_spec{"trace", "file", value_type::string, R"("rtkit-trace.json")", "",
             "where the trace goes (relative to the working directory); Perfetto and "
             "chrome://tracing open it",
             [](runtime_config& c, const config_value& v) { c.trace.file = as_string(v); },
             [](const runtime_config& c) { return config_value(c.trace.file.string()); }},
    key_spec{"trace", "buffer_events", value_type::integer, "4096", "",
             "records each worker keeps (64 bytes each) before it writes them to the file",
             [](runtime_config& c, const config_value& v) {
                 c.trace.buffer_events = static_cast<std::size_t>(std::get<std::int64_t>(v));
             },
             [](const runtime_config& c) {
                 return config_value(static_cast<std::int64_t>(c.trace.buffer_events));
             },
             1, 16'777'216},
    key_spec{"reactor", "plugin", value_type::plugin_preference, R"("epoll")", "",
             "reactor name, or an array in order of preference (first that starts wins)",
             [](runtime_config& c, const config_value& v) { c.reactor.preference = as_list(v); },
             [](const runtime_config& c) { return config_value(c.reactor.preference); }},
    key_spec{"reactor", "strict", value_type::boolean, "false", "",
             "fail instead of falling back when the first preference cannot start",
             [](runtime_config& c, const config_value& v) { c.reactor.strict = std::get<bool>(v); },
             [](const runtime_config& c) { return config_value(c.reactor.strict); }},
    key_spec{"timer", "plugin", value_type::plugin_preference, R"("wheel")", "",
             "timer driver name, or an array in order of preference",
             [](runtime_config& c, const config_value& v) { c.timer.preference = as_list(v); },
             [](const runtime_config& c) { return config_value(c.timer.preference); }},
    key_spec{"lanes", "plugin", value_type::plugin_preference, R"("three_lane")", "",
             "lane policy name, or an array in order of preference",
             [](runtime_config& c, const config_value& v) { c.lanes.preference = as_list(v); },
             [](const runtime_config& c) { return config_value(c.lanes.preference); }},
};

}  // namespace

std::string_view describe(value_type type) noexcept {
    switch (type) {
        case value_type::string:
            return "a string";
        case value_type::boolean:
            return "a boolean (true or false)";
        case value_type::integer:
            return "an integer";
        case value_type::plugin_preference:
            return "a plugin name or an array of plugin names";
        case value_type::path_list:
            return "an array of directory paths";
    }
    return "a value";
}

std::span<const table_spec> tables() noexcept {
    return table_specs;
}
std::span<const key_spec> keys() noexcept {
    return key_specs;
}

const key_spec* find_key(std::string_view table, std::string_view name) noexcept {
    auto it = std::find_if(key_specs.begin(), key_specs.end(),
                           [&](const key_spec& k) { return k.table == table && k.name == name; });
    return it == key_specs.end() ? nullptr : &*it;
}

const table_spec* find_table(std::string_view name) noexcept {
    auto it = std::find_if(table_specs.begin(), table_specs.end(),
                           [&](const table_spec& t) { return t.name == name; });
    return it == table_specs.end() ? nullptr : &*it;
}

std::vector<std::string_view> key_names(std::string_view table) {
    std::vector<std::string_view> names;
    for (const auto& k : key_specs)
        if (k.table == table) names.push_back(k.name);
    return names;
}

std::vector<std::string_view> table_names() {
    std::vector<std::string_view> names;
    for (const auto& t : table_specs)
        names.push_back(t.name);
    return names;
}

std::vector<std::string> dotted_key_names() {
    std::vector<std::string> names;
    for (const auto& k : key_specs)
        names.push_back(std::string(k.table) + '.' + std::string(k.name));
    return names;
}

std::string environment_name(const key_spec& key) {
    std::string name = "RTKIT_";
    for (const char c : std::string(key.table) + '_' + std::string(key.name))
        name += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return name;
}

}  // namespace rtkit::config
