#pragma once
// Trace events (runtime_config::trace): fixed-size records kept per worker
// and written out as Chrome trace-event JSON (kernel/README.md, "Trace
// events", is the format's reference).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rtkit/detail/task_extras.hpp"
#include "rtkit/runtime_config.hpp"
#include "rtkit/time.hpp"
#include "runtime_clock.hpp"

namespace rtkit::detail {

/// What a trace record says happened.
enum class trace_kind : std::uint8_t {
    spawn,         ///< task, a = parent, b = frame bytes (0: not known), name, site
    poll,          ///< task, dur, a = the flow id of the wake that caused it (0: none), name,
                   ///< site, detail = 1 when taken from the cancel lane
    wake,          ///< task, a = flow id, detail = trace_wake_from | trace_wake_self
    end,           ///< task, detail = trace_outcome
    park,          ///< dur
    timer_arm,     ///< task (0: not known)
    timer_fire,    ///< a = how many fired
    timer_cancel,  ///< task (0: not known)
    io_ready,      ///< a = registrations made ready and completions delivered
    cancel,        ///< task
    region_open,   ///< a = region id
    region_close,  ///< a = region id
    counters,      ///< a = tasks alive, b = entries queued
    lost_wake,     ///< task, name, site: left waiting where nothing can wake it
};

/// Who made a wake (trace_record::detail, low two bits).
namespace trace_wake_from {
enum : std::uint8_t { same_worker = 0, other_worker = 1, outside = 2 };
}
/// The task woke itself from inside its own poll (trace_record::detail).
inline constexpr std::uint8_t trace_wake_self = 4;

/// How a task ended (trace_record::detail of an end record).
namespace trace_outcome {
enum : std::uint8_t { completed = 0, cancelled = 1, panicked = 2 };
}

/// One event. Strings are interned by the recorder (trace_recorder::intern),
/// so a record holds pointers that live as long as the recorder.
struct trace_record {
    std::int64_t ts = 0;   ///< ns on the runtime's clock since the recorder started
    std::int64_t dur = 0;  ///< ns, for poll and park
    std::uint64_t task = 0;
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    const std::string* name = nullptr;
    const std::string* site = nullptr;
    std::uint32_t tid = 0;
    trace_kind kind{};
    std::uint8_t detail = 0;
};

/// The trace's id of `task` (a traced spawn gives it one), or 0.
inline std::uint64_t traced_id(const task_header* task) noexcept {
    const task_extras* extras = task ? task->extras() : nullptr;
    return extras ? extras->id.load(std::memory_order_relaxed) : 0;
}

class trace_recorder;

/// The records of one worker, written only by the thread driving it (no lock,
/// no atomic): full, it is written out to the file and starts again.
class trace_ring {
  public:
    trace_ring(trace_recorder& to, std::uint32_t tid, std::size_t capacity);
    trace_ring(const trace_ring&) = delete;
    trace_ring& operator=(const trace_ring&) = delete;

    /// Keeps `r` (its tid set here).
    void record(trace_record r) noexcept {
        r.tid = tid_;
        records_[count_++] = r;
        if (count_ == records_.size()) flush();
    }
    /// A wake's flow id, unique in the trace: this ring's tid and a sequence.
    std::uint64_t next_flow_id() noexcept { return (std::uint64_t{tid_} << 32) | ++flows_; }
    /// The runtime's clock as trace timestamps.
    std::int64_t now() const noexcept;
    trace_recorder& recorder() noexcept { return to_; }
    /// Writes what it holds to the file.
    void flush() noexcept;

  private:
    trace_recorder& to_;
    std::uint32_t tid_;
    std::vector<trace_record> records_;
    std::size_t count_ = 0;
    std::uint32_t flows_ = 0;
};

/// A runtime's trace: the file, one ring per worker, and one mutex-guarded
/// buffer for threads that drive no worker (each such thread gets a tid from
/// 1000 up, in the order they first record). The JSON is written as the
/// buffers fill, and closed by finish().
class trace_recorder {
  public:
    /// Opens (truncates) `config.file`; throws std::runtime_error when it
    /// cannot. `clock` is the runtime's (now() reads it).
    trace_recorder(const trace_config& config, const runtime_clock& clock);
    ~trace_recorder();
    trace_recorder(const trace_recorder&) = delete;
    trace_recorder& operator=(const trace_recorder&) = delete;

    /// The ring of worker `index` (made here; called while the runtime is built).
    trace_ring& add_worker_ring(std::uint16_t index);
    /// Keeps `r` for a thread that drives no worker of the runtime.
    void record_outside(trace_record r);
    /// A flow id for a wake from such a thread.
    std::uint64_t next_outside_flow_id();
    /// `text` for the lifetime of the recorder (the same pointer for the same text).
    const std::string* intern(std::string_view text);
    /// Nanoseconds since the recorder started, on the runtime's clock.
    std::int64_t now() const noexcept;
    /// Writes every buffer out and closes the JSON and the file. Once, when
    /// no thread records any more.
    void finish() noexcept;

  private:
    friend class trace_ring;
    /// Appends records to the file (under file_lock_).
    void write(const trace_record* records, std::size_t count) noexcept;
    void write_event(const trace_record& r);
    void write_thread_name(std::uint32_t tid, const std::string& name);
    std::uint32_t outside_tid_locked();

    const runtime_clock& clock_;
    instant start_;
    std::size_t capacity_;
    std::string path_;
    std::mutex file_lock_;
    std::FILE* file_ = nullptr;
    bool first_event_ = true;
    std::vector<std::unique_ptr<trace_ring>> rings_;
    std::mutex outside_lock_;
    std::vector<trace_record> outside_;
    std::vector<std::pair<std::thread::id, std::uint32_t>> outside_tids_;
    std::uint32_t outside_flows_ = 0;
    std::mutex names_lock_;
    std::unordered_set<std::string> names_;
    std::string line_;  ///< the events being formatted (under file_lock_)
};

}  // namespace rtkit::detail
