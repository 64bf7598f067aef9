// A readiness wait that is cancelled leaves nothing of its task in the
// reactor: when the task ends, its frame goes at once (a socket among its
// parameters closes then), and readiness that arrives later finds nobody to
// wake. Were a waker left behind, that readiness would drop the task's last
// reference inside the reactor's poll, and the socket's destructor would
// reach for the reactor there (under the multi-thread runtime's reactor
// lock, which is not recursive: a deadlock).
#include <chrono>

#include "waiting_tasks.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Owns `kept` (a parameter: it lives as long as the frame) and waits to
/// read one byte from `watched` after saying it is about to.
task<void> wait_holding([[maybe_unused]] net::unix_stream kept, net::unix_stream& watched,
                        sync::oneshot_sender<bool> waiting) {
    waiting.send(true);
    char byte = 0;
    co_await watched.read(&byte, 1);
}

/// Cancels a task waiting to read, then checks that its frame went with it
/// and that readiness on the socket it waited on wakes nothing of it.
task<void> cancel_a_waiting_reader() {
    auto [watched, watched_peer] = net::unix_stream::pair();
    auto [kept, kept_peer] = net::unix_stream::pair();
    auto [tx, rx] = sync::make_oneshot<bool>();
    // A local task of this (local) task's thread: once this one runs again
    // after the send, the reader's poll has ended in its read's wait.
    auto reader = cx::current().spawn_local(wait_holding(std::move(kept), watched, std::move(tx)));
    REQUIRE(co_await rx);
    reader.cancel();
    CHECK((co_await std::move(reader)).is_cancelled());
    // The frame went with the join: `kept` is closed, its peer reads the end.
    char byte = 0;
    std::size_t n = 1;
    try {
        n = co_await kept_peer.read(&byte, 1).with_deadline(now() + 5s);
    } catch (const std::system_error& e) {
        FAIL_CHECK("the cancelled task's frame is still alive (a waker kept it?): " << e.what());
    }
    CHECK(n == 0);
    // Readiness now wakes nothing of the ended task, and the socket still works.
    co_await watched_peer.write_all("x");
    CHECK(co_await watched.read(&byte, 1) == 1);
}

}  // namespace

TEST_CASE("cancel: a cancelled read wait leaves no waker - the task's frame goes when it ends") {
    net_test::on_every_setup("readiness after a cancelled wait", &cancel_a_waiting_reader);
}
