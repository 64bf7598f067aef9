// Reactors that differ from a real one in exactly one way, chosen when the
// file is compiled, to prove what the conformance suite catches:
//   VARIANT_NOOP_WAKE            wake() does nothing
//   VARIANT_WRONG_REGISTRATION   every readiness goes to the oldest registration
//   VARIANT_ROTATES_TOKENS       readiness of several registrations in one poll
//                                goes to each other's tokens, rotated by one
//   VARIANT_DROPS_UNWATCHED      readiness is delivered only while watch() is pending
//   VARIANT_REPEATS_DELIVERED    level-triggered, and keeps watching what it delivered
//   VARIANT_FIRST_DIRECTION_ONLY level-triggered, and watches only the first
//                                direction ever asked for on a registration
//   VARIANT_DROPS_BEYOND_CAP     delivers at most 256 events per poll and
//                                forgets the rest
//   VARIANT_EINTR_IS_ERROR       a signal during its wait makes poll() throw
//                                (built with a wait that does not retry EINTR)
// and ones that differ in ways the kernel tolerates, or not at all:
//   VARIANT_EINTR_NOT_RETRIED    a signal during its wait makes poll() return early
//   VARIANT_STALE_AFTER_REUSE    readiness the descriptor had when it was
//                                removed is delivered to the next registration
//                                of its number
//   VARIANT_LIMITED              correct, with the limits its options declare
//   VARIANT_REFUSES_TO_SHARE     offers driver_handoff_v1 and fails its share()
// Each wraps a real backend: the epoll plugin, or for the level-triggered ones
// the poll(2) reactor of examples/third_party_reactor. The EINTR variants are
// the epoll plugin built against a different wait_through_interrupts
// (eintr_variant/).
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include "rtkit/plugin.hpp"

#if defined(VARIANT_REPEATS_DELIVERED) || defined(VARIANT_FIRST_DIRECTION_ONLY)
#define VARIANT_ON_POLL_REACTOR 1
#include "poll_reactor.hpp"
#else
#include "epoll_reactor.hpp"
#endif

namespace {

#ifdef VARIANT_ON_POLL_REACTOR
using real_reactor = example_poll::poll_reactor;
#else
using real_reactor = rtkit_epoll::epoll_reactor;
#endif

class variant_reactor final : public rtkit::reactor
#ifdef VARIANT_REFUSES_TO_SHARE
    ,
                              public rtkit::driver_handoff_v1
#endif
{
  public:
    explicit variant_reactor(const rtkit::plugin_options& options)
#if defined(VARIANT_ON_POLL_REACTOR)
        : real_(rtkit::plugin_options(nullptr))
#elif defined(VARIANT_DROPS_BEYOND_CAP)
        : real_(4 * cap)  // epoll hands over more than the variant passes on
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
        registered_.push_back({fd, token, 0, 0});
#ifdef VARIANT_STALE_AFTER_REUSE
        // What the descriptor's last registration had when it was removed
        // comes with the next poll, under this registration's token.
        const auto stale = std::find_if(removed_with_.begin(), removed_with_.end(),
                                        [&](const stale_readiness& s) { return s.fd == fd; });
        if (stale != removed_with_.end()) {
            if (stale->bits) stale_.push_back({token, stale->bits});
            removed_with_.erase(stale);
        }
#endif
    }
    void watch(int fd, rtkit::io_token token, rtkit::interest want) override {
        registration& r = *find(token);
#ifdef VARIANT_FIRST_DIRECTION_ONLY
        if (r.first_asked == 0) r.first_asked = static_cast<unsigned>(want);
        want = static_cast<rtkit::interest>(r.first_asked);
#endif
        real_.watch(fd, token, want);
        r.watched |= static_cast<unsigned>(want);
    }
    void remove(int fd, rtkit::io_token token) noexcept override {
#ifdef VARIANT_STALE_AFTER_REUSE
        // As a reactor that fetched readiness and had not delivered it yet would.
        pollfd now{fd, POLLIN | POLLOUT | POLLRDHUP, 0};
        unsigned bits = 0;
        if (::poll(&now, 1, 0) == 1) {
            if (now.revents & POLLIN) bits |= rtkit::ready::readable;
            if (now.revents & POLLOUT) bits |= rtkit::ready::writable;
            if (now.revents & (POLLHUP | POLLRDHUP)) bits |= rtkit::ready::hangup;
            if (now.revents & POLLERR) bits |= rtkit::ready::error;
        }
        removed_with_.push_back({fd, bits});
#endif
        real_.remove(fd, token);
        registered_.erase(find(token));
    }
    std::size_t poll(rtkit::duration timeout, rtkit::readiness_sink& sink) override {
#ifdef VARIANT_REPEATS_DELIVERED
        // Asks again for every direction ever watched, as if nothing had been delivered.
        for (const registration& r : registered_)
            if (r.watched) real_.watch(r.fd, r.token, static_cast<rtkit::interest>(r.watched));
#endif
#ifdef VARIANT_STALE_AFTER_REUSE
        for (const pending& p : std::exchange(stale_, {}))
            sink.deliver(p.token, p.bits);
#endif
        forwarding_sink forward(*this, sink);
        const std::size_t completed = real_.poll(timeout, forward);
#ifdef VARIANT_ROTATES_TOKENS
        // Each delivery of this poll goes to the token of the one before it.
        for (std::size_t i = 0; i < held_.size(); ++i)
            sink.deliver(held_[(i + held_.size() - 1) % held_.size()].token, held_[i].bits);
        held_.clear();
#endif
        return completed;
    }
    void wake() noexcept override {
#ifndef VARIANT_NOOP_WAKE
        real_.wake();
#endif
    }
    rtkit::reactor_limits limits() const noexcept override {
        return limits_;
    }
#ifdef VARIANT_REFUSES_TO_SHARE
    void* query_interface(const char* name) noexcept override {
        if (name && std::strcmp(name, rtkit::driver_handoff_v1_name) == 0)
            return static_cast<rtkit::driver_handoff_v1*>(this);
        return nullptr;
    }
    void share() override {
        throw std::system_error(ENOMEM, std::generic_category(),
                                "refuses_to_share: no ring for others");
    }
#endif

  private:
    struct registration {
        int fd;
        rtkit::io_token token;
        unsigned watched;      ///< directions watch() asked for
        unsigned first_asked;  ///< the first direction watch() asked for
    };
    struct pending {
        rtkit::io_token token;
        unsigned bits;
    };
    struct stale_readiness {
        int fd;
        unsigned bits;
    };
    static constexpr std::size_t cap = 256;

    /// Passes the real backend's deliveries on, changed as the variant says.
    class forwarding_sink final : public rtkit::readiness_sink {
      public:
        forwarding_sink(variant_reactor& self, rtkit::readiness_sink& to) : self_(self), to_(to) {}
        void deliver(rtkit::io_token token, unsigned bits) noexcept override {
#if defined(VARIANT_WRONG_REGISTRATION)
            token = self_.registered_.front().token;
#elif defined(VARIANT_ROTATES_TOKENS)
            self_.held_.push_back({token, bits});
            return;
#elif defined(VARIANT_DROPS_BEYOND_CAP)
            if (++delivered_ > cap) return;
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
        [[maybe_unused]] std::size_t delivered_ = 0;
    };

    std::vector<registration>::iterator find(rtkit::io_token token) {
        return std::find_if(registered_.begin(), registered_.end(),
                            [&](const registration& r) { return r.token == token; });
    }

    real_reactor real_;
    std::vector<registration> registered_;  ///< in the order they were added
    rtkit::reactor_limits limits_;
    std::vector<pending> held_;                  ///< rotates_tokens: this poll's deliveries
    std::vector<pending> stale_;                 ///< stale_after_reuse: for the next poll
    std::vector<stale_readiness> removed_with_;  ///< stale_after_reuse: by descriptor
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
