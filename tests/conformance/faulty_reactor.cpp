// A reactor plugin that is wrong on purpose: it accepts any descriptor, never
// reports readiness, its poll ignores the timeout, and its completion
// interface fails every operation inside submit() with a wake. The conformance suite must fail it,
// and `rtctl conformance` must exit 1 for it (proof that the suite can fail).
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
    void add(int, rtkit::io_token) override {}
    void watch(int, rtkit::io_token, rtkit::interest) override {}
    void remove(int, rtkit::io_token) noexcept override {}
    std::size_t poll(rtkit::duration, rtkit::readiness_sink&) override {
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
};

constexpr rtkit_plugin_descriptor faulty_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, faulty_reactor>(
        "faulty", "0.0.1", "a reactor that fails the conformance suite on purpose", nullptr, 0);

}  // namespace

RTKIT_EXPORT_PLUGIN(faulty_descriptor)
