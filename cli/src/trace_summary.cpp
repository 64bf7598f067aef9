#include "trace_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "trace_reader.hpp"

namespace rtctl {
namespace {

using json = nlohmann::json;

/// The field as text whatever its JSON type: a lane is a name or a number.
std::string as_text(const json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

/// A duration given in microseconds, in the unit that reads best.
std::string time_text(double us) {
    if (us >= 1e6) return fixed(us / 1e6, 3) + " s";
    if (us >= 1e3) return fixed(us / 1e3, 1) + " ms";
    return fixed(us, us < 10 ? 2 : 1) + " us";
}

/// "1 poll", "2 polls".
std::string count_of(std::uint64_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

/// The nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
    const auto rank =
        static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

/// "NAME N (P%), ..." for counts by kind.
std::string mix(const std::map<std::string, std::uint64_t>& counts) {
    std::uint64_t total = 0;
    for (const auto& [name, count] : counts)
        total += count;
    std::string out;
    for (const auto& [name, count] : counts)
        out += (out.empty() ? "" : ", ") + name + " " + std::to_string(count) + " (" +
               fixed(100.0 * static_cast<double>(count) / static_cast<double>(total), 1) + "%)";
    return out;
}

/// "armed 3, fired 2" for counts by name, in the order given.
std::string counts(const std::map<std::string, std::uint64_t>& by_name,
                   std::initializer_list<const char*> names) {
    std::string out;
    for (const char* name : names) {
        const auto found = by_name.find(name);
        out += (out.empty() ? "" : ", ") +
               std::to_string(found == by_name.end() ? 0 : found->second) + " " + name;
    }
    return out;
}

/// The id that pairs a wake's flow start with its end: a number or a string.
std::string flow_id(const json& event) {
    const auto found = event.find("id");
    if (found == event.end() || !(found->is_number() || found->is_string()))
        throw trace_error("'id' is missing or not a number or a string");
    return as_text(*found);
}

const json& args_of(const json& event) {
    static const json empty = json::object();
    const auto found = event.find("args");
    if (found == event.end()) return empty;
    if (!found->is_object()) throw trace_error("'args' is not an object");
    return *found;
}

}  // namespace

void trace_summary::add_wake_end(const std::string& id, std::int64_t thread, double at,
                                 bool at_poll) {
    auto& waiting_here = at_poll ? polls_without_wake_ : wakes_without_poll_;
    auto& other_ends = at_poll ? wakes_without_poll_ : polls_without_wake_;
    const auto other = other_ends.find(id);
    if (other == other_ends.end()) {
        waiting_here.emplace(id,
                             at_poll ? wake_arrow{0, 0, thread, at} : wake_arrow{thread, at, 0, 0});
        return;
    }
    wake_arrow arrow = other->second;
    other_ends.erase(other);
    if (at_poll) {
        arrow.to_thread = thread;
        arrow.to_us = at;
    } else {
        arrow.from_thread = thread;
        arrow.from_us = at;
    }
    wake_latencies_us_.push_back(arrow.to_us - arrow.from_us);
    arrows_.push_back(arrow);
}

trace_summary::task_info& trace_summary::task(std::uint64_t id) {
    task_info& info = tasks_[id];
    if (info.name.empty()) info.name = "task " + std::to_string(id);
    return info;
}

std::string trace_summary::describe(std::uint64_t id) const {
    const auto found = tasks_.find(id);
    const std::string name =
        found == tasks_.end() ? "task " + std::to_string(id) : found->second.name;
    return "'" + name + "' (task " + std::to_string(id) + ")";
}

void trace_summary::seen_at(double start_us, double end_us) {
    if (events_ == 1 || start_us < first_us_) first_us_ = start_us;
    if (events_ == 1 || end_us > last_us_) last_us_ = end_us;
}

void trace_summary::add(const json& event) {
    ++events_;
    const std::string phase = trace_field<std::string>(event, "ph");
    const std::string name = trace_field<std::string>(event, "name");
    const std::int64_t thread = trace_field<std::int64_t>(event, "tid");
    const json& args = args_of(event);
    if (phase == "M") {
        --events_;  // metadata, at no time
        if (name == "thread_name") thread_names_[thread] = trace_field<std::string>(args, "name");
        return;
    }
    const std::string category = trace_field<std::string>(event, "cat");
    const double at = trace_field<double>(event, "ts");
    const double duration = phase == "X" ? trace_field<double>(event, "dur") : 0;
    seen_at(at, at + duration);

    if (category == "poll" && phase == "X") {
        const auto id = trace_field<std::uint64_t>(args, "task");
        task_info& info = task(id);
        ++info.polls;
        info.poll_us += duration;
        info.longest_poll_us = std::max(info.longest_poll_us, duration);
        std::string site = args.contains("site") ? trace_field<std::string>(args, "site") : "";
        polls_.push_back({thread, at, duration, id, std::move(site)});
        if (const auto lane = args.find("lane"); lane != args.end()) ++lanes_[as_text(*lane)];
    } else if (category == "task" && name == "spawn") {
        task_info& info = task(trace_field<std::uint64_t>(args, "task"));
        if (const std::string given = trace_field<std::string>(args, "name"); !given.empty())
            info.name = given;
        info.site = trace_field<std::string>(args, "site");
        info.frame_bytes = trace_field<std::uint64_t>(args, "frame_bytes");
    } else if (category == "task" && name == "end") {
        task(trace_field<std::uint64_t>(args, "task")).outcome =
            trace_field<std::string>(args, "outcome");
    } else if (category == "task" && name == "cancel") {
        ++cancel_requests_;
    } else if (category == "wake" && phase == "s") {
        task_info& info = task(trace_field<std::uint64_t>(args, "task"));
        ++info.wakes;
        if (trace_field<bool>(args, "self")) ++info.self_wakes;
        ++wake_sources_[trace_field<std::string>(args, "from")];
        add_wake_end(flow_id(event), thread, at, false);
    } else if (category == "wake" && phase == "f") {
        add_wake_end(flow_id(event), thread, at, true);
    } else if (category == "timer") {
        // A fire may stand for several timers.
        timers_[name] += args.contains("count") ? trace_field<std::uint64_t>(args, "count") : 1;
    } else if (category == "io") {
        ++io_[name];
    } else if (category == "region") {
        ++regions_[name];
    } else if (category == "park") {
        ++parks_;
        parked_us_ += duration;
    } else if (category == "lint" && name == "lost_wake") {
        const auto id = trace_field<std::uint64_t>(args, "task");
        task_info& info = task(id);
        if (const std::string given = trace_field<std::string>(args, "name"); !given.empty())
            info.name = given;
        if (info.site.empty()) info.site = trace_field<std::string>(args, "site");
        lost_wakes_.push_back(id);
    } else if (phase == "C" && name == "tasks") {
        if (args.contains("alive"))
            peak_alive_ = std::max(peak_alive_, trace_field<std::uint64_t>(args, "alive"));
        if (args.contains("queued"))
            peak_queued_ = std::max(peak_queued_, trace_field<std::uint64_t>(args, "queued"));
    }
}

std::string trace_summary::report(const lint_thresholds& thresholds) const {
    std::string out = std::to_string(events_) + " events over " + time_text(last_us_ - first_us_) +
                      " on " + count_of(thread_names_.size(), "thread");
    std::string names;
    for (const auto& [thread, name] : thread_names_)
        names += (names.empty() ? "" : ", ") + name;
    out += names.empty() ? "\n" : " (" + names + ")\n";

    std::map<std::string, std::uint64_t> outcomes;
    for (const auto& [id, info] : tasks_)
        ++outcomes[info.outcome.empty() ? "not ended" : info.outcome];
    out += "tasks: " + std::to_string(tasks_.size()) + " (" +
           counts(outcomes, {"completed", "cancelled", "panicked", "not ended"}) + "); at most " +
           std::to_string(peak_alive_) + " alive and " + std::to_string(peak_queued_) +
           " queued at once\n";

    // The busiest tasks: the ten polled longest, all told.
    std::vector<const std::pair<const std::uint64_t, task_info>*> busiest;
    for (const auto& entry : tasks_)
        if (entry.second.polls > 0) busiest.push_back(&entry);
    std::sort(busiest.begin(), busiest.end(), [](const auto* a, const auto* b) {
        return a->second.poll_us != b->second.poll_us ? a->second.poll_us > b->second.poll_us
                                                      : a->first < b->first;
    });
    if (busiest.size() > 10) busiest.resize(10);
    if (!busiest.empty()) {
        out += "busiest tasks (time polled, polls, longest poll, spawned at):\n";
        for (const auto* entry : busiest) {
            const task_info& info = entry->second;
            out += "  " + describe(entry->first) + ": " + time_text(info.poll_us) + ", " +
                   count_of(info.polls, "poll") + ", longest " + time_text(info.longest_poll_us) +
                   (info.site.empty() ? "" : ", spawned at " + info.site) + "\n";
        }
    }

    std::uint64_t wakes = 0;
    for (const auto& [from, count] : wake_sources_)
        wakes += count;
    out += "wakes: " + std::to_string(wakes);
    if (wakes > 0) out += " (" + mix(wake_sources_) + ")";
    if (!wake_latencies_us_.empty()) {
        std::vector<double> sorted = wake_latencies_us_;
        std::sort(sorted.begin(), sorted.end());
        out += "; wake to poll: p50 " + time_text(percentile(sorted, 50)) + ", p99 " +
               time_text(percentile(sorted, 99)) + ", max " + time_text(sorted.back()) + " over " +
               std::to_string(sorted.size()) + " polls";
    }
    out += "\n";
    if (!lanes_.empty()) out += "lanes: " + mix(lanes_) + "\n";
    out += "timers: " + counts(timers_, {"arm", "fire", "cancel"}) + "\n";
    out += "io: " + counts(io_, {"ready", "complete"}) + "\n";
    out += "parks: " + std::to_string(parks_) + ", " + time_text(parked_us_) + " parked\n";
    out += "cancel requests: " + std::to_string(cancel_requests_) +
           "; regions: " + counts(regions_, {"open", "close"}) + "\n";

    // Lints, most serious first; each kind shows its first 20.
    std::vector<std::string> lints;
    std::size_t lint_count = 0;
    constexpr std::size_t shown = 20;
    auto lint_kind = [&](std::vector<std::string> found) {
        const std::size_t total = found.size();
        lint_count += total;
        if (total > shown) found.resize(shown);
        lints.insert(lints.end(), found.begin(), found.end());
        if (total > shown)
            lints.push_back("... and " + std::to_string(total - shown) + " more like it");
    };
    std::vector<std::string> found;
    for (std::uint64_t id : lost_wakes_) {
        const task_info& info = tasks_.at(id);
        found.push_back("task " + describe(id) +
                        " can never run again: it was left pending with no waker (a lost wake-up)" +
                        (info.site.empty() ? "" : "; spawned at " + info.site));
    }
    lint_kind(std::move(found));
    found.clear();
    for (const poll_box& poll : polls_) {
        if (poll.duration_us <= thresholds.long_poll_us) continue;
        const task_info& info = tasks_.at(poll.task);
        const std::string& where = poll.site.empty() ? info.site : poll.site;
        const auto worker = thread_names_.find(poll.thread);
        found.push_back("task " + describe(poll.task) + " held " +
                        (worker == thread_names_.end() ? "thread " + std::to_string(poll.thread)
                                                       : worker->second) +
                        " for " + time_text(poll.duration_us) +
                        (where.empty() ? "" : " at " + where));
    }
    lint_kind(std::move(found));
    found.clear();
    for (const auto& [id, info] : tasks_)
        if (info.self_wakes * 2 > info.wakes)
            found.push_back("task " + describe(id) + " woke itself for " +
                            std::to_string(info.self_wakes) + " of its " +
                            count_of(info.wakes, "wake") +
                            (info.site.empty() ? "" : "; spawned at " + info.site));
    lint_kind(std::move(found));
    found.clear();
    for (const auto& [id, info] : tasks_)
        if (info.frame_bytes > thresholds.frame_bytes)
            found.push_back("task " + describe(id) + " has a coroutine frame of " +
                            std::to_string(info.frame_bytes) + " bytes, over " +
                            std::to_string(thresholds.frame_bytes) +
                            (info.site.empty() ? "" : "; spawned at " + info.site));
    lint_kind(std::move(found));

    if (lints.empty()) return out + "lints: none\n";
    out += "lints: " + std::to_string(lint_count) + "\n";
    for (const std::string& lint : lints)
        out += "  " + lint + "\n";
    return out;
}

}  // namespace rtctl
