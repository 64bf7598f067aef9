// A reactor plugin that ignores wake(): the real epoll reactor otherwise. A
// worker blocked in its poll() is never woken for work another thread
// brings, so on the multi-thread flavor the runtime hangs (one worker in
// poll() with no timeout, the others waiting for the reactor): what rtctl's
// time limit must end all the same. With test_poll_ignores_timeout, a poll
// that may block waits for readiness alone, past its timeout: its worker is
// then stuck there for good, on either flavor, while the script waits for
// a client that never comes.
#include "epoll_reactor.hpp"
#include "rtkit/plugin.hpp"

namespace {

class deaf_reactor final : public rtkit::reactor {
  public:
    explicit deaf_reactor(const rtkit::plugin_options& options)
        : ignore_timeout_(options.get_bool("test_poll_ignores_timeout")) {}
    void add(int fd, rtkit::io_token token) override { epoll_.add(fd, token); }
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override {
        epoll_.watch(fd, token, want);
    }
    void remove(int fd, rtkit::io_token token) noexcept override { epoll_.remove(fd, token); }
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override {
        if (ignore_timeout_ && timeout.count() != 0) timeout = rtkit::duration{-1};
        return epoll_.poll(timeout, sink);
    }
    void wake() noexcept override {}  // the mistake

  private:
    const bool ignore_timeout_;
    rtkit_epoll::epoll_reactor epoll_{256};
};

constexpr rtkit_option_decl deaf_options[] = {
    {"test_poll_ignores_timeout", RTKIT_OPTION_BOOL, "false", 0, 0, nullptr,
     "fault injection: a poll that may block waits for readiness alone, past its timeout"},
};

constexpr rtkit_plugin_descriptor deaf_reactor_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, deaf_reactor>(
        "deaf", "0.0.1", "test reactor: epoll whose wake() does nothing", deaf_options, 1);

}  // namespace

RTKIT_EXPORT_PLUGIN(deaf_reactor_descriptor)
