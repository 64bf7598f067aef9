#pragma once
// rtctl inspect TRACE.json: what a trace says about a run (busiest tasks,
// wake-to-poll latency, lanes, timers, I/O) and the lints it raises.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace rtctl {

/// What the lints look for.
struct lint_thresholds {
    double long_poll_us = 1000;         ///< a poll longer than this holds its worker too long
    std::uint64_t frame_bytes = 16384;  ///< a coroutine frame larger than this
};

/// The events of one trace, gathered for a summary and a timeline.
/// add() takes the events in file order (trace_reader.hpp); it throws
/// trace_error for an event without a field the contract says it has.
class trace_summary {
  public:
    void add(const nlohmann::json& event);

    /// The report rtctl inspect prints.
    std::string report(const lint_thresholds& thresholds) const;

    struct task_info {
        std::string name;  ///< the spawn's name, or "task N"
        std::string site;  ///< where it was spawned, file:line, or ""
        std::uint64_t frame_bytes = 0;
        std::string outcome;  ///< "" while it had not ended in the trace
        std::uint64_t polls = 0;
        double poll_us = 0;  ///< the time of all its polls
        double longest_poll_us = 0;
        std::uint64_t wakes = 0;
        std::uint64_t self_wakes = 0;
    };
    struct poll_box {
        std::int64_t thread;
        double start_us, duration_us;
        std::uint64_t task;
        std::string site;
    };
    struct wake_arrow {
        std::int64_t from_thread;
        double from_us;
        std::int64_t to_thread;
        double to_us;
    };

    const std::map<std::int64_t, std::string>& threads() const { return thread_names_; }
    const std::vector<poll_box>& polls() const { return polls_; }
    const std::vector<wake_arrow>& wakes() const { return arrows_; }
    double first_us() const { return first_us_; }
    double last_us() const { return last_us_; }
    /// The task's name as the report writes it: 'name' (task N).
    std::string describe(std::uint64_t task) const;

  private:
    task_info& task(std::uint64_t id);
    void seen_at(double start_us, double end_us);
    /// One end of a wake's flow: the wake (at_poll false) or the poll it caused.
    void add_wake_end(const std::string& id, std::int64_t thread, double at, bool at_poll);

    std::size_t events_ = 0;
    double first_us_ = 0, last_us_ = 0;
    std::map<std::int64_t, std::string> thread_names_;
    std::map<std::uint64_t, task_info> tasks_;
    std::vector<poll_box> polls_;
    std::map<std::string, std::uint64_t> lanes_;
    std::map<std::string, std::uint64_t> wake_sources_;
    // Each wake's two ends by flow id, until the other end comes: the workers'
    // events are written worker by worker, so a poll may come before its wake.
    std::unordered_map<std::string, wake_arrow> wakes_without_poll_, polls_without_wake_;
    std::vector<wake_arrow> arrows_;
    std::vector<double> wake_latencies_us_;
    std::map<std::string, std::uint64_t> timers_, io_, regions_;
    std::uint64_t cancel_requests_ = 0;
    std::uint64_t parks_ = 0;
    double parked_us_ = 0;
    std::uint64_t peak_alive_ = 0, peak_queued_ = 0;
    std::vector<std::uint64_t> lost_wakes_;  // task ids, in trace order
};

}  // namespace rtctl
