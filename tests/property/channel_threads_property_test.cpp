// The channel (kernel/include/rtkit/sync/channel.hpp) under random sequences
// of send, try_send, reserve-then-send and cancelled sends from one or two
// sender tasks on one thread's runtime, and recv, try_recv and cancelled recvs
// on another thread's runtime, with capacities 1 to 4, the receiver either
// draining to the end or closing early.
//
// Checked: values from one sender arrive in the order sent, each at most
// once, and only if its send reported success; while the receiver lives,
// send and reserve never fail and every value reported sent arrives; a
// cancelled send either sent its value or left nothing behind; and no value
// is leaked whatever was cancelled or closed.
#include <atomic>
#include <thread>
#include <vector>

#include "property_support.hpp"
#include "rtkit/rtkit.hpp"
#include "rtkit/sync/channel.hpp"

using namespace rtkit;
using namespace rtkit::sync;

namespace {

/// A value that counts the live instances of its type, to prove none leaks.
struct counted {
    static inline std::atomic<int> live{0};
    int sender = 0;
    int seq = 0;
    counted(int s, int q) : sender(s), seq(q) { ++live; }
    counted(counted&& other) noexcept : sender(other.sender), seq(other.seq) { ++live; }
    counted& operator=(counted&&) = default;
    ~counted() { --live; }
};

enum class send_op { send, try_send, reserve, cancelled_send };
enum class recv_op { recv, try_recv, cancelled_recv };

struct plan {
    std::size_t capacity = 1;
    std::vector<std::vector<send_op>> senders;
    std::vector<recv_op> receiver;
    bool receiver_closes_early = false;
    int yields_before_cancel = 0;
};

/// What each sender's attempts reported: true when the value was sent.
using send_reports = std::vector<std::vector<bool>>;

task<bool> send_in_task(channel_sender<counted> tx, counted value) {
    co_return co_await tx.send(std::move(value));
}

task<std::optional<counted>> recv_in_task(channel_receiver<counted>& rx) {
    co_return co_await rx.recv();
}

task<void> run_sender(channel_sender<counted> tx, int id, const std::vector<send_op>& ops,
                      int yields_before_cancel, std::vector<bool>& reported) {
    for (std::size_t seq = 0; seq < ops.size(); ++seq) {
        counted value(id, static_cast<int>(seq));
        bool sent = false;
        switch (ops[seq]) {
            case send_op::send:
                sent = co_await tx.send(std::move(value));
                break;
            case send_op::try_send:
                sent = tx.try_send(std::move(value)) == try_send_result::sent;
                break;
            case send_op::reserve: {
                channel_permit<counted> permit = co_await tx.reserve();
                sent = permit && permit.send(std::move(value));
                break;
            }
            case send_op::cancelled_send: {
                auto attempt = spawn(send_in_task(tx, std::move(value)));
                for (int i = 0; i < yields_before_cancel; ++i)
                    co_await yield_now();
                attempt.cancel();
                outcome<bool> result = co_await std::move(attempt);
                RC_ASSERT(!result.is_panicked());
                sent = result.is_ok() && result.value();
                break;
            }
        }
        reported.push_back(sent);
    }
    { auto gone = std::move(tx); }
}

task<void> run_senders(channel_sender<counted> tx, const plan& p, send_reports& reports) {
    std::vector<join_handle<void>> senders;
    for (std::size_t id = 0; id < p.senders.size(); ++id)
        senders.push_back(spawn(run_sender(tx, static_cast<int>(id), p.senders[id],
                                           p.yields_before_cancel, reports[id])));
    { auto gone = std::move(tx); }  // only the senders' copies remain
    for (auto& s : senders)
        RC_ASSERT((co_await std::move(s)).is_ok());
}

task<void> run_receiver(channel_receiver<counted> rx, const plan& p,
                        std::vector<std::pair<int, int>>& received) {
    auto keep = [&](std::optional<counted>& v) {
        if (v) received.emplace_back(v->sender, v->seq);
    };
    for (const recv_op op : p.receiver) {
        std::optional<counted> value;
        switch (op) {
            case recv_op::recv:
                value = co_await rx.recv();
                break;
            case recv_op::try_recv:
                value = rx.try_recv();
                break;
            case recv_op::cancelled_recv: {
                auto attempt = spawn(recv_in_task(rx));
                for (int i = 0; i < p.yields_before_cancel; ++i)
                    co_await yield_now();
                attempt.cancel();
                outcome<std::optional<counted>> result = co_await std::move(attempt);
                RC_ASSERT(!result.is_panicked());
                if (result.is_ok()) value = std::move(result.value());
                break;
            }
        }
        keep(value);
    }
    if (p.receiver_closes_early) co_return;  // rx goes with the frame: the channel closes
    while (true) {
        std::optional<counted> value = co_await rx.recv();
        if (!value) break;
        keep(value);
    }
}

plan any_plan() {
    plan p;
    p.capacity = *rc::gen::inRange<std::size_t>(1, 5);
    p.senders = *rc::gen::container<std::vector<std::vector<send_op>>>(
        *rc::gen::inRange<std::size_t>(1, 3),
        rc::gen::container<std::vector<send_op>>(rc::gen::element(
            send_op::send, send_op::try_send, send_op::reserve, send_op::cancelled_send)));
    p.receiver = *rc::gen::container<std::vector<recv_op>>(
        rc::gen::element(recv_op::recv, recv_op::try_recv, recv_op::cancelled_recv));
    p.receiver_closes_early = *rc::gen::arbitrary<bool>();
    p.yields_before_cancel = *rc::gen::inRange(0, 4);
    return p;
}

void check_delivery(const plan& p, const send_reports& reports,
                    const std::vector<std::pair<int, int>>& received) {
    std::vector<int> last_seq(p.senders.size(), -1);
    std::vector<std::vector<bool>> arrived(p.senders.size());
    for (std::size_t s = 0; s < p.senders.size(); ++s)
        arrived[s].resize(reports[s].size());
    for (const auto& [sender, seq] : received) {
        const auto s = static_cast<std::size_t>(sender);
        RC_ASSERT(seq > last_seq[s]);  // in order, and at most once
        last_seq[s] = seq;
        RC_ASSERT(reports[s].at(static_cast<std::size_t>(seq)));  // only what was sent
        arrived[s][static_cast<std::size_t>(seq)] = true;
    }
    if (p.receiver_closes_early) return;
    for (std::size_t s = 0; s < p.senders.size(); ++s)
        for (std::size_t seq = 0; seq < reports[s].size(); ++seq) {
            const send_op op = p.senders[s][seq];
            if (op == send_op::send || op == send_op::reserve) RC_ASSERT(reports[s][seq]);
            RC_ASSERT(arrived[s][seq] == reports[s][seq]);  // nothing sent is lost
        }
}

/// One random plan, run on two runtimes on two threads, then checked.
void channel_keeps_its_promises() {
    const int live_before = counted::live.load();
    const plan p = any_plan();
    send_reports reports(p.senders.size());
    std::vector<std::pair<int, int>> received;
    {
        // Built on this thread: two runtimes built at once would load
        // plugins concurrently, which the race detector reports inside
        // the dynamic loader.
        runtime senders_rt, receiver_rt;
        auto [tx, rx] = make_channel<counted>(p.capacity);
        std::thread sending([&, tx = std::move(tx)]() mutable {
            senders_rt.block_on(run_senders(std::move(tx), p, reports));
        });
        receiver_rt.block_on(run_receiver(std::move(rx), p, received));
        sending.join();
    }
    check_delivery(p, reports, received);
    RC_ASSERT(counted::live.load() == live_before);
}

}  // namespace

TEST_CASE(
    "channel across two threads - sends recvs cancels and closes keep order and lose nothing") {
    CHECK(rc::check(channel_keeps_its_promises));
}
