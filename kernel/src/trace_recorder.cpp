#include "trace_recorder.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "frame_sizes.hpp"

namespace rtkit::detail {

namespace {

/// Appends `text` as a JSON string (quoted, escaped). Formatting is most of
/// what a traced poll costs, so it avoids printf and temporary strings.
void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    const auto plain = [](char c) {
        return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
    };
    std::size_t from = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (plain(c)) continue;
        out.append(text.substr(from, i - from));
        from = i + 1;
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            default: {
                static constexpr char hex[] = "0123456789abcdef";
                const auto byte = static_cast<unsigned char>(c);
                out += "\\u00";
                out += hex[byte >> 4];
                out += hex[byte & 15];
            }
        }
    }
    out.append(text.substr(from));
    out += '"';
}

void append_number(std::string& out, std::uint64_t n) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out.append(digits, end);
}

/// Nanoseconds as microseconds with three decimals, as the viewers read `ts`.
void append_micros(std::string& out, std::int64_t ns) {
    if (ns < 0) {
        out += '-';
        ns = -ns;
    }
    const auto whole = static_cast<std::uint64_t>(ns);
    append_number(out, whole / 1000);
    const auto fraction = static_cast<unsigned>(whole % 1000);
    const char decimals[4] = {'.', static_cast<char>('0' + fraction / 100),
                              static_cast<char>('0' + fraction / 10 % 10),
                              static_cast<char>('0' + fraction % 10)};
    out.append(decimals, 4);
}

const char* wake_from_name(std::uint8_t detail) {
    switch (detail & 3) {
        case trace_wake_from::same_worker:
            return "same_worker";
        case trace_wake_from::other_worker:
            return "other_worker";
        default:
            return "outside";
    }
}

const char* outcome_name(std::uint8_t detail) {
    switch (detail) {
        case trace_outcome::cancelled:
            return "cancelled";
        case trace_outcome::panicked:
            return "panicked";
        default:
            return "completed";
    }
}

}  // namespace

trace_ring::trace_ring(trace_recorder& to, std::uint32_t tid, std::size_t capacity)
    : to_(to), tid_(tid), records_(capacity) {}

std::int64_t trace_ring::now() const noexcept {
    return to_.now();
}

void trace_ring::flush() noexcept {
    to_.write(records_.data(), count_);
    count_ = 0;
}

trace_recorder::trace_recorder(const trace_config& config, const runtime_clock& clock)
    : clock_(clock),
      start_(clock.now()),
      capacity_(config.buffer_events),
      path_(config.file.string()) {
    if (capacity_ == 0)
        throw std::invalid_argument(
            "trace.buffer_events = 0: each worker needs room for at least one record");
    file_ = std::fopen(path_.c_str(), "w");
    if (!file_)
        throw std::runtime_error("cannot write the trace file '" + path_ +
                                 "': " + std::strerror(errno) +
                                 " (set [trace] file, or rtctl run --trace, to a writable path)");
    std::fputs("{\"traceEvents\":[", file_);
    line_.reserve(65536 + 1024);
    note_frame_sizes();  // for the spawn records' frame_bytes
}

trace_recorder::~trace_recorder() {
    finish();
}

trace_ring& trace_recorder::add_worker_ring(std::uint16_t index) {
    rings_.push_back(std::make_unique<trace_ring>(*this, index, capacity_));
    std::lock_guard lock(file_lock_);
    write_thread_name(index, "worker " + std::to_string(index));
    return *rings_.back();
}

std::int64_t trace_recorder::now() const noexcept {
    return (clock_.now() - start_).count();
}

const std::string* trace_recorder::intern(std::string_view text) {
    std::lock_guard lock(names_lock_);
    return &*names_.emplace(text).first;
}

std::uint32_t trace_recorder::outside_tid_locked() {
    const std::thread::id me = std::this_thread::get_id();
    for (const auto& [thread, tid] : outside_tids_)
        if (thread == me) return tid;
    const auto tid = static_cast<std::uint32_t>(1000 + outside_tids_.size());
    outside_tids_.emplace_back(me, tid);
    std::lock_guard lock(file_lock_);
    write_thread_name(tid, "outside " + std::to_string(tid - 1000));
    return tid;
}

void trace_recorder::record_outside(trace_record r) {
    std::lock_guard lock(outside_lock_);
    r.tid = outside_tid_locked();
    outside_.push_back(r);
    if (outside_.size() >= capacity_) {
        write(outside_.data(), outside_.size());
        outside_.clear();
    }
}

std::uint64_t trace_recorder::next_outside_flow_id() {
    std::lock_guard lock(outside_lock_);
    return (std::uint64_t{outside_tid_locked()} << 32) | ++outside_flows_;
}

void trace_recorder::finish() noexcept {
    if (!file_) return;
    for (auto& ring : rings_)
        ring->flush();
    {
        std::lock_guard lock(outside_lock_);
        write(outside_.data(), outside_.size());
        outside_.clear();
    }
    std::lock_guard lock(file_lock_);
    std::fputs("\n],\"displayTimeUnit\":\"ns\"}\n", file_);
    std::fclose(file_);
    file_ = nullptr;
}

void trace_recorder::write(const trace_record* records, std::size_t count) noexcept {
    std::lock_guard lock(file_lock_);
    if (!file_) return;
    try {
        // Formatted into one string, written at most every 64 KiB.
        line_.clear();
        for (std::size_t i = 0; i < count; ++i) {
            write_event(records[i]);
            if (line_.size() >= 65536) {
                std::fwrite(line_.data(), 1, line_.size(), file_);
                line_.clear();
            }
        }
        std::fwrite(line_.data(), 1, line_.size(), file_);
    } catch (...) {
        // Out of memory while formatting: these records are lost, the JSON
        // stays whole (each event is written in one piece).
    }
}

void trace_recorder::write_thread_name(std::uint32_t tid, const std::string& name) {
    line_.clear();
    line_ += first_event_ ? "\n" : ",\n";
    first_event_ = false;
    line_ += R"({"ph":"M","name":"thread_name","pid":1,"tid":)";
    append_number(line_, tid);
    line_ += R"(,"args":{"name":)";
    append_json_string(line_, name);
    line_ += "}}";
    std::fwrite(line_.data(), 1, line_.size(), file_);
}

void trace_recorder::write_event(const trace_record& r) {
    std::string& out = line_;
    out += first_event_ ? "\n" : ",\n";
    first_event_ = false;
    // The fields every event has, then its own.
    const auto head = [&](const char* ph, const char* cat, std::string_view name) {
        out += R"({"ph":")";
        out += ph;
        out += R"(","cat":")";
        out += cat;
        out += R"(","name":)";
        append_json_string(out, name);
        out += R"(,"pid":1,"tid":)";
        append_number(out, r.tid);
        out += R"(,"ts":)";
        append_micros(out, r.ts);
    };
    const auto text = [](const std::string* s) -> std::string_view {
        if (!s) return {};
        return *s;
    };
    const auto instant_for_task = [&](const char* cat, const char* name) {
        head("i", cat, name);
        out += R"(,"s":"t","args":{"task":)";
        append_number(out, r.task);
        out += "}}";
    };
    switch (r.kind) {
        case trace_kind::spawn:
            head("i", "task", "spawn");
            out += R"(,"s":"t","args":{"task":)";
            append_number(out, r.task);
            out += R"(,"parent":)";
            append_number(out, r.a);
            out += R"(,"name":)";
            append_json_string(out, text(r.name));
            out += R"(,"site":)";
            append_json_string(out, text(r.site));
            out += R"(,"frame_bytes":)";
            append_number(out, r.b);
            out += "}}";
            break;
        case trace_kind::poll:
            if (r.name) {
                head("X", "poll", *r.name);
            } else {
                char unnamed[32] = "task ";
                const auto end = std::to_chars(unnamed + 5, unnamed + sizeof unnamed, r.task).ptr;
                head("X", "poll", std::string_view(unnamed, end - unnamed));
            }
            out += R"(,"dur":)";
            append_micros(out, r.dur);
            out += R"(,"args":{"task":)";
            append_number(out, r.task);
            out += R"(,"site":)";
            append_json_string(out, text(r.site));
            out += r.detail ? R"(,"lane":"cancel"}})" : R"(,"lane":"ready"}})";
            if (r.a) {  // the end of the wake's arrow, bound to this slice
                out += ",\n";
                head("f", "wake", "wake");
                out += R"(,"bp":"e","id":)";
                append_number(out, r.a);
                out += "}";
            }
            break;
        case trace_kind::wake:
            head("s", "wake", "wake");
            out += R"(,"id":)";
            append_number(out, r.a);
            out += R"(,"args":{"task":)";
            append_number(out, r.task);
            out += R"(,"from":")";
            out += wake_from_name(r.detail);
            out += (r.detail & trace_wake_self) ? R"(","self":true}})" : R"(","self":false}})";
            break;
        case trace_kind::end:
            head("i", "task", "end");
            out += R"(,"s":"t","args":{"task":)";
            append_number(out, r.task);
            out += R"(,"outcome":")";
            out += outcome_name(r.detail);
            out += "\"}}";
            break;
        case trace_kind::park:
            head("X", "park", "park");
            out += R"(,"dur":)";
            append_micros(out, r.dur);
            out += "}";
            break;
        case trace_kind::timer_arm:
            instant_for_task("timer", "arm");
            break;
        case trace_kind::timer_cancel:
            instant_for_task("timer", "cancel");
            break;
        case trace_kind::timer_fire:
            head("i", "timer", "fire");
            out += R"(,"s":"t","args":{"count":)";
            append_number(out, r.a);
            out += "}}";
            break;
        case trace_kind::io_ready:
            head("i", "io", "ready");
            out += R"(,"s":"t","args":{"events":)";
            append_number(out, r.a);
            out += "}}";
            break;
        case trace_kind::cancel:
            instant_for_task("task", "cancel");
            break;
        case trace_kind::region_open:
        case trace_kind::region_close:
            head("i", "region", r.kind == trace_kind::region_open ? "open" : "close");
            out += R"(,"s":"t","args":{"region":)";
            append_number(out, r.a);
            out += "}}";
            break;
        case trace_kind::lost_wake:
            head("i", "lint", "lost_wake");
            out += R"(,"s":"t","args":{"task":)";
            append_number(out, r.task);
            out += R"(,"name":)";
            append_json_string(out, text(r.name));
            out += R"(,"site":)";
            append_json_string(out, text(r.site));
            out += "}}";
            break;
        case trace_kind::counters:
            head("C", "task", "tasks");
            out += R"(,"args":{"alive":)";
            append_number(out, r.a);
            out += R"(,"queued":)";
            append_number(out, r.b);
            out += "}}";
            break;
    }
}

}  // namespace rtkit::detail
