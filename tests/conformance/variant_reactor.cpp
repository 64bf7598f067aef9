// Reactors that differ from a real one in exactly one way, chosen when the
// file is compiled, to prove what the conformance suite catches:
//   VARIANT_NOOP_WAKE          wake() does nothing
//   VARIANT_WRONG_REGISTRATION every readiness goes to the oldest registration
//   VARIANT_DROPS_UNWATCHED    readiness is delivered only while watch() is pending
//   VARIANT_REPEATS_DELIVERED  level-triggered, and keeps watching what it delivered
//   VARIANT_LIMITED            correct, with the limits its options declare
// Each wraps a real backend: the epoll plugin, or for the level-triggered one
// the poll(2) reactor of examples/third_party_reactor.
#include <algorithm>
#include <vector>

#include "rtkit/plugin.hpp"

#ifdef VARIANT_REPEATS_DELIVERED
#include "poll_reactor.hpp"
#else
#include "epoll_reactor.hpp"
#endif

namespace {

#ifdef VARIANT_REPEATS_DELIVERED
using real_reactor = example_poll::poll_reactor;
#else
using real_reactor = rtkit_epoll::epoll_reactor;
#endif

class variant_reactor final : public rtkit::reactor {
  public:
    explicit variant_reactor(const rtkit::plugin_options& options)
#ifdef VARIANT_REPEATS_DELIVERED
        : real_(rtkit::plugin_options(nullptr))
#else
        : real_(256)
#endif
    {
#ifdef VARIANT_LIMITED
        limits_.max_registrations = static_cast<std::size_t>(options.get_int("max_registrations"));
        limits_.descriptor_limit = static_cast<int>(options.get_int("descriptor_limit"));
#else
        (void)options;
#endif
    }

    void add(int fd, rtkit::io_token token) override {
        real_.add(fd, token);
        registered_.push_back({fd, token, 0});
    }
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override {
        real_.watch(fd, token, want);
        find(token)->watched |= static_cast<unsigned>(want);
    }
    void remove(int fd, rtkit::io_token token) noexcept override {
        real_.remove(fd, token);
        registered_.erase(find(token));
    }
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override {
#ifdef VARIANT_REPEATS_DELIVERED
        // Asks again for every direction ever watched, as if nothing had been delivered.
        for (const registration& r : registered_)
            if (r.watched) real_.watch(r.fd, r.token, static_cast<rtkit::interest>(r.watched));
#endif
        forwarding_sink forward(*this, sink);
        return real_.poll(timeout, forward);
    }
    void wake() noexcept override {
#ifndef VARIANT_NOOP_WAKE
        real_.wake();
#endif
    }
    rtkit::reactor_limits limits() const noexcept override {
        return limits_;
    }

  private:
    struct registration {
        int fd;
        rtkit::io_token token;
        unsigned watched;  ///< directions watch() asked for
    };

    /// Passes the real backend's deliveries on, changed as the variant says.
    class forwarding_sink final : public rtkit::readiness_sink {
      public:
        forwarding_sink(variant_reactor& self, rtkit::readiness_sink& to) : self_(self), to_(to) {}
        void deliver(rtkit::io_token token, unsigned bits) noexcept override {
#if defined(VARIANT_WRONG_REGISTRATION)
            token = self_.registered_.front().token;
#elif defined(VARIANT_DROPS_UNWATCHED)
            const auto r = self_.find(token);
            if (r->watched == 0) return;
            r->watched = 0;
#endif
            to_.deliver(token, bits);
        }

      private:
        [[maybe_unused]] variant_reactor& self_;
        rtkit::readiness_sink& to_;
    };

    std::vector<registration>::iterator find(rtkit::io_token token) {
        return std::find_if(registered_.begin(), registered_.end(),
                            [&](const registration& r) { return r.token == token; });
    }

    real_reactor real_;
    std::vector<registration> registered_;  ///< in the order they were added
    rtkit::reactor_limits limits_;
};

#ifdef VARIANT_LIMITED
constexpr rtkit_option_decl limited_options[] = {
    {"max_registrations", RTKIT_OPTION_INT, "64", 0, 1000000, nullptr,
     "registrations it declares it can hold (0: no limit)"},
    {"descriptor_limit", RTKIT_OPTION_INT, "0", 0, 1000000, nullptr,
     "descriptor numbers it declares it can watch, from 0 (0: no limit)"},
};
constexpr const rtkit_option_decl* variant_options = limited_options;
constexpr std::uint32_t variant_option_count = 2;
#else
constexpr const rtkit_option_decl* variant_options = nullptr;
constexpr std::uint32_t variant_option_count = 0;
#endif

constexpr rtkit_plugin_descriptor variant_descriptor =
    rtkit::make_plugin_descriptor<rtkit::reactor, variant_reactor>(
        VARIANT_NAME, "0.0.1", "test reactor: a real one with one difference on purpose",
        variant_options, variant_option_count);

}  // namespace

RTKIT_EXPORT_PLUGIN(variant_descriptor)
