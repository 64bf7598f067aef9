// A worker's trace points (runtime_config::trace), out of the hot paths;
// the poll's own record is execute_traced, with the dispatch in worker.cpp.
#include "rtkit/detail/task_extras.hpp"
#include "trace_recorder.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

void worker::trace_end(task_header* task) noexcept {
    trace_record r;
    r.kind = trace_kind::end;
    r.ts = trace_->now();
    r.task = traced_id(task);
    // outcome_slot's tags: 1 a value, 2 an error, 3 cancelled, 4 panicked.
    r.detail = task->outcome_tag == 3   ? trace_outcome::cancelled
               : task->outcome_tag == 4 ? trace_outcome::panicked
                                        : trace_outcome::completed;
    trace_->record(r);
}

void worker::trace_timer(std::uint8_t kind) noexcept {
    trace_record r;
    r.kind = static_cast<trace_kind>(kind);
    r.ts = trace_->now();
    r.task = traced_id(current_task());
    trace_->record(r);
}

void worker::trace_count(std::uint8_t kind, std::uint64_t count) noexcept {
    trace_record r;
    r.kind = static_cast<trace_kind>(kind);
    r.ts = trace_->now();
    r.a = count;
    trace_->record(r);
}

std::int64_t worker::trace_now() const noexcept {
    return trace_->now();
}

void worker::trace_park(std::int64_t began) noexcept {
    trace_counters();
    trace_record r;
    r.kind = trace_kind::park;
    r.ts = began;
    r.dur = trace_->now() - began;
    trace_->record(r);
}

void worker::trace_counters() noexcept {
    trace_record r;
    r.kind = trace_kind::counters;
    r.ts = trace_->now();
    r.a = group_.live_tasks();
    r.b = queued();
    trace_->record(r);
}

}  // namespace rtkit::detail
