// A reactor plugin for the driver's failure tests: the real epoll reactor,
// whose poll() throws when the test arms a fault, and which counts the
// blocking waits it enters.
#include "epoll_reactor.hpp"
#include "plugin_control.hpp"
#include "rtkit/plugin.hpp"

namespace {

rtkit::test::plugin_control control;

class faulty_reactor final : public rtkit::reactor {
  public:
    explicit faulty_reactor(const rtkit::plugin_options&) {}
    rtkit::io_token add(int fd, rtkit::interest what) override { return epoll_.add(fd, what); }
    void modify(rtkit::io_token token, rtkit::interest what) override {
        epoll_.modify(token, what);
    }
    void remove(rtkit::io_token token) noexcept override { epoll_.remove(token); }
    unsigned poll_ready(rtkit::io_token token, rtkit::interest want,
                        const rtkit::waker& w) override {
        return epoll_.poll_ready(token, want, w);
    }
    void clear_ready(rtkit::io_token token, unsigned bits) noexcept override {
        epoll_.clear_ready(token, bits);
    }
    std::size_t poll(rtkit::duration timeout) override {
        control.maybe_fail("faulty_epoll: injected poll failure");
        if (timeout.count() != 0) control.note_blocking_wait();
        return epoll_.poll(timeout);
    }
    void wake() noexcept override { epoll_.wake(); }

  private:
    rtkit_epoll::epoll_reactor epoll_{256};
};

constexpr rtkit_plugin_descriptor faulty_reactor_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, faulty_reactor>(
        "faulty_epoll", "0.0.1", "test reactor: epoll, with a poll that fails on demand", nullptr,
        0);

}  // namespace

RTKIT_TEST_EXPORT_PLUGIN_CONTROL(control)
RTKIT_EXPORT_PLUGIN(faulty_reactor_descriptor)
