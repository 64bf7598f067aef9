#pragma once
// The threads of one runtime that run blocking calls.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

#include "rtkit/runtime_config.hpp"

namespace rtkit::detail {

class blocking_job;

/// What the pool's threads are called (ps, top, /proc/PID/task/TID/comm).
inline constexpr const char* blocking_thread_name = "rtkit-blocking";
struct blocking_pool_state;

/// Runs blocking_jobs on threads of its own: an idle thread takes the next
/// call, a new one starts when none is idle (up to the configured maximum;
/// calls beyond it wait in line), and a thread idle for the keep-alive ends.
/// Any thread may submit. The threads are detached and share the pool's
/// state, so a thread still running a call when the runtime goes ends on its
/// own afterwards.
class blocking_pool {
  public:
    /// Throws std::invalid_argument for max_threads < 1 or a negative keep-alive.
    explicit blocking_pool(const blocking_pool_config& config);
    /// Closes the pool without waiting (close(std::nullopt)).
    ~blocking_pool();
    blocking_pool(const blocking_pool&) = delete;
    blocking_pool& operator=(const blocking_pool&) = delete;

    /// Queues `job` and finds it a thread. Throws blocking_call_refused once
    /// closed, std::system_error when no thread can be started and none runs.
    void submit(blocking_job& job);

    /// Refuses new calls, drops the queued ones (their tasks are told), lets
    /// idle threads end, and waits until every thread has ended or `until`
    /// (no wait without it). Returns how many calls were still running then:
    /// they end on their own threads, their results dropped. A second call
    /// waits again and returns what still runs.
    std::size_t close(std::optional<std::chrono::steady_clock::time_point> until);

  private:
    std::shared_ptr<blocking_pool_state> state_;
};

}  // namespace rtkit::detail
