// rtbench WORKLOAD [--config FILE] [--set KEY=VALUE]... [--port PORT]
// rtbench soak [--seconds S] [--trace-every T] [--config FILE] [--set KEY=VALUE]...
// rtbench scale [--max N] [--config FILE] [--set KEY=VALUE]...
// rtbench host
//
// Runs one workload of shared/bench/WORKLOADS.md on the runtime the
// configuration describes and prints its result line in that file's format.
// W7 is a server instead: it serves TCP echo on 127.0.0.1:PORT until SIGTERM.
// soak runs a mixed load for S seconds (600 by default), then checks that
// every task, descriptor and byte of memory was given back (soak.hpp);
// --trace-every T prints its memory figures every T seconds on the way.
// scale prints how cancellation, shutdown and wake-ups grow with the number
// of tasks, at 10^3 .. N tasks (10^6 by default; scale.hpp).
// host prints what this host charges now: a system call, a clock read, a cache
// line between two CPUs (host_costs.hpp).
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "echo_server.hpp"
#include "host_costs.hpp"
#include "rtkit/rtkit.hpp"
#include "scale.hpp"
#include "soak.hpp"
#include "workloads.hpp"
#ifdef RTBENCH_HAS_CONFIG
#include "rtkit/config/load.hpp"
#endif

namespace {

double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return secs(usage.ru_utime) + secs(usage.ru_stime);
}

int usage_error(const std::string& message) {
    std::fprintf(
        stderr,
        "rtbench: %s\nusage: rtbench WORKLOAD [--config FILE] [--set KEY=VALUE]... [--port PORT]\n"
        "       rtbench soak [--seconds S] [--trace-every T] [--config FILE] [--set "
        "KEY=VALUE]...\n"
        "       rtbench scale [--max N] [--config FILE] [--set KEY=VALUE]...\n"
        "       rtbench host\n",
        message.c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2)
        return usage_error("missing workload (" + std::string(rtbench::known_workloads()) + ")");
    std::string workload = argv[1];
    if (workload == "host")
        return argc == 2 ? rtbench::print_host_costs() : usage_error("host takes no options");
    rtkit::runtime_config config;
    std::vector<std::string> overrides;
    long port = -1;
    std::optional<long> seconds;
    std::optional<long> trace_every;
    std::optional<long> max_size;
    std::optional<std::string> config_file;
    for (int i = 2; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--port" && i + 1 < argc) {
            char* end = nullptr;
            port = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || port < 1 || port > 65535)
                return usage_error("--port needs a TCP port number (1-65535), not '" +
                                   std::string(argv[i]) + "'");
        } else if (arg == "--seconds" && i + 1 < argc) {
            char* end = nullptr;
            seconds = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || *seconds < 1)
                return usage_error("--seconds needs a whole number of seconds (at least 1), not '" +
                                   std::string(argv[i]) + "'");
        } else if (arg == "--trace-every" && i + 1 < argc) {
            char* end = nullptr;
            trace_every = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || *trace_every < 1)
                return usage_error(
                    "--trace-every needs a whole number of seconds (at least 1), not '" +
                    std::string(argv[i]) + "'");
        } else if (arg == "--max" && i + 1 < argc) {
            char* end = nullptr;
            max_size = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || *max_size < 1000)
                return usage_error("--max needs a number of tasks (at least 1000), not '" +
                                   std::string(argv[i]) + "'");
        } else if ((arg == "--config" || arg == "--set") && i + 1 < argc) {
            std::string value = argv[++i];
#ifdef RTBENCH_HAS_CONFIG
            if (arg == "--config")
                config_file = value;  // read below, where a bad file is reported
            else
                overrides.push_back(value);
#else
            return usage_error("this build has no configuration support for " + arg);
#endif
        } else {
            return usage_error("unknown argument '" + arg + "'");
        }
    }
    if (seconds && workload != "soak") return usage_error("--seconds is for 'rtbench soak' only");
    if (max_size && workload != "scale") return usage_error("--max is for 'rtbench scale' only");
    if (trace_every && workload != "soak")
        return usage_error("--trace-every is for 'rtbench soak' only");
    try {
#ifdef RTBENCH_HAS_CONFIG
        if (config_file) config = rtkit::config::load_file(*config_file);
        for (const std::string& o : overrides)
            rtkit::config::apply_override(config, o);
#endif
        if (workload == "scale") return rtbench::run_scale(config, max_size.value_or(1'000'000));
        rtbench::shape_runtime(workload, config);
        rtkit::runtime rt(config);
        if (workload == "soak")
            return rtbench::run_soak(rt, std::chrono::seconds(seconds.value_or(600)),
                                     std::chrono::seconds(trace_every.value_or(0)));
        if (workload == "W7") {
            if (port < 0) return usage_error("W7 serves TCP echo and needs --port PORT");
            return rtbench::run_echo_server(rt, static_cast<std::uint16_t>(port));
        }
        double cpu_before = cpu_seconds();
        rtbench::result r = rtbench::run_workload(workload, rt);
        double cpu = cpu_seconds() - cpu_before;
        std::printf(
            "workload=%s runtime=rtkit n=%llu seconds=%.6f ns_per_op=%.2f checksum=%lld "
            "cpu_seconds=%.3f%s%s\n",
            r.workload.c_str(), static_cast<unsigned long long>(r.n), r.seconds,
            r.seconds * 1e9 / static_cast<double>(r.n), static_cast<long long>(r.checksum), cpu,
            r.extra.empty() ? "" : " ", r.extra.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rtbench: %s\n", e.what());
        return 1;
    }
}
