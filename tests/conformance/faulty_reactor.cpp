// A reactor plugin that is wrong on purpose: it never reports readiness, its
// poll ignores the timeout, and its completion interface fails every operation
// inside submit() with a wake. The conformance suite must fail it, and
// `rtctl conformance` must exit 1 for it (proof that the suite can fail).
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/plugin.hpp"

namespace {

class faulty_reactor final : public rtkit::reactor, public rtkit::completion_reactor_v1 {
  public:
    explicit faulty_reactor(const rtkit::plugin_options&) {}
    rtkit::io_token add(int, rtkit::interest) override { return ++next_; }
    void modify(rtkit::io_token, rtkit::interest) override {}
    void remove(rtkit::io_token) noexcept override {}
    unsigned poll_ready(rtkit::io_token, rtkit::interest, const rtkit::waker&) override {
        return 0;
    }
    void clear_ready(rtkit::io_token, unsigned) noexcept override {}
    std::size_t poll(rtkit::duration) override {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        return 0;
    }
    void wake() noexcept override {}
    void* query_interface(const char* name) noexcept override {
        if (name && std::strcmp(name, rtkit::completion_reactor_v1_name) == 0)
            return static_cast<rtkit::completion_reactor_v1*>(this);
        return nullptr;
    }

    void submit(const rtkit::io_request&, rtkit::io_completion& done) override {
        done.result = -ENOSYS;
        done.pending = false;
        done.on_complete.wake();
    }
    void cancel(rtkit::io_completion&) noexcept override {}

  private:
    rtkit::io_token next_ = 0;
};

constexpr rtkit_plugin_descriptor faulty_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, faulty_reactor>(
        "faulty", "0.0.1", "a reactor that fails the conformance suite on purpose", nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(faulty_descriptor)
