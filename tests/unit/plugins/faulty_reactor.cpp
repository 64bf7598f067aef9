// A reactor plugin for the driver's failure tests: the real epoll reactor,
// whose poll() throws when the test arms a fault, or gets stuck while the
// test holds its blocking polls, and which counts the blocking waits it
// enters.
#include "epoll_reactor.hpp"
#include "plugin_control.hpp"
#include "rtkit/plugin.hpp"

namespace {

rtkit::test::plugin_control control;

class faulty_reactor final : public rtkit::reactor {
  public:
    explicit faulty_reactor(const rtkit::plugin_options&) {}
    void add(int fd, rtkit::io_token token) override { epoll_.add(fd, token); }
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override {
        epoll_.watch(fd, token, want);
    }
    void remove(int fd, rtkit::io_token token) noexcept override { epoll_.remove(fd, token); }
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override {
        control.maybe_fail("faulty_epoll: injected poll failure");
        if (timeout.count() != 0) {
            control.note_blocking_wait();
            control.pass_gate();
        }
        return epoll_.poll(timeout, sink);
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
