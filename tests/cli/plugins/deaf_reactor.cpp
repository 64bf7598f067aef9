// A reactor plugin that ignores wake(): the real epoll reactor otherwise. A
// worker blocked in its poll() is never woken for work another thread
// brings, so on the multi-thread flavor the runtime hangs (one worker in
// poll() with no timeout, the others waiting for the reactor): what rtctl's
// time limit must end all the same.
#include "epoll_reactor.hpp"
#include "rtkit/plugin.hpp"

namespace {

class deaf_reactor final : public rtkit::reactor {
  public:
    explicit deaf_reactor(const rtkit::plugin_options&) {}
    void add(int fd, rtkit::io_token token) override { epoll_.add(fd, token); }
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override {
        epoll_.watch(fd, token, want);
    }
    void remove(int fd, rtkit::io_token token) noexcept override { epoll_.remove(fd, token); }
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override {
        return epoll_.poll(timeout, sink);
    }
    void wake() noexcept override {}  // the mistake

  private:
    rtkit_epoll::epoll_reactor epoll_{256};
};

constexpr rtkit_plugin_descriptor deaf_reactor_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, deaf_reactor>(
        "deaf", "0.0.1", "test reactor: epoll whose wake() does nothing", nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(deaf_reactor_descriptor)
