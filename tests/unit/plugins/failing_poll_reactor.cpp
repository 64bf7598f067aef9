// A reactor plugin for the background-failure test: a real, minimal reactor
// (poll waits on an eventfd that wake() writes, up to the timeout) that
// throws from poll() on any thread but the one that created it. Registrations
// are refused: the test needs timers and wakes only.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "rtkit/plugin.hpp"

namespace {

class failing_poll_reactor final : public rtkit::reactor {
  public:
    explicit failing_poll_reactor(const rtkit::plugin_options&)
        : wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
        if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    }
    ~failing_poll_reactor() override { close(wake_fd_); }

    void add(int, rtkit::io_token) override {
        throw std::system_error(ENOTSUP, std::generic_category(), "failing_poll: no registrations");
    }
    void watch(int, rtkit::io_token, rtkit::interest) override {}
    void remove(int, rtkit::io_token) noexcept override {}

    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink&) override {
        if (std::this_thread::get_id() != creator_)
            throw std::runtime_error("failing_poll: injected failure off the creating thread");
        pollfd p{wake_fd_, POLLIN, 0};
        const auto ms =
            timeout.count() < 0 ? -1 : static_cast<int>((timeout.count() + 999'999) / 1'000'000);
        if (::poll(&p, 1, ms) > 0) {
            std::uint64_t count = 0;
            [[maybe_unused]] const ssize_t n = read(wake_fd_, &count, sizeof count);
        }
        return 0;
    }
    void wake() noexcept override {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof one);
    }

  private:
    int wake_fd_;
    std::thread::id creator_ = std::this_thread::get_id();
};

constexpr rtkit_plugin_descriptor failing_poll_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, failing_poll_reactor>(
        "failing_poll", "0.0.1", "test reactor: poll throws off the creating thread", nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(failing_poll_descriptor)
