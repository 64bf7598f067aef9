#pragma once
// Where a task's promise keeps its outcome until someone takes it. Not API.
#include <bit>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "rtkit/detail/task_header.hpp"
#include "rtkit/outcome.hpp"

namespace rtkit::detail {

/// A task's outcome inside its frame: the value, or the one pointer behind
/// which a rare state keeps its details, in a union (a task ends ok,
/// cancelled or panicked; only combinators make errors). Which of them is
/// alive is a tag byte its owner keeps elsewhere (a task header has one to
/// spare).
///
/// Tag 0 is "never completed" (nothing alive); otherwise the tag is the
/// outcome's state plus one. Taking the outcome moves it out and leaves the
/// moved-from member alive, for destroy() to end. A slot that fits in a word
/// lives in the task header's spare resume word (promise_with_outcome), so
/// such a task spends no bytes of its own on its outcome.
template <class T>
class outcome_slot {
    using state = typename outcome<T>::state;

  public:
    outcome_slot() noexcept {}
    outcome_slot(const outcome_slot&) = delete;
    outcome_slot& operator=(const outcome_slot&) = delete;
    /// The owner calls destroy() with the tag; the union cannot know it.
    ~outcome_slot() {}

    template <class U>
    void set_value(std::uint8_t& tag, U&& value) {
        destroy(tag);
        new (&value_) T(std::forward<U>(value));
        tag = tag_of(state::ok);
    }
    /// Sets the outcome for the exception `thrown`: cancelled for
    /// task_cancelled, panicked for anything else. Either keeps the exception
    /// itself, so that an awaiter can throw it on without making another.
    void set_exception(std::uint8_t& tag, std::exception_ptr thrown) noexcept {
        destroy(tag);
        const bool cancelled = is_cancellation(thrown);
        new (&thrown_) std::exception_ptr(std::move(thrown));
        tag = tag_of(cancelled ? state::cancelled : state::panicked);
    }
    static bool is_ok(std::uint8_t tag) noexcept { return tag == tag_of(state::ok); }
    /// The value (is_ok(tag)), to move out; destroy() still ends it.
    T& value() noexcept { return value_; }
    static bool is_panicked(std::uint8_t tag) noexcept { return tag == tag_of(state::panicked); }
    static bool is_cancelled(std::uint8_t tag) noexcept { return tag == tag_of(state::cancelled); }
    /// Whether the task ended by an exception (cancelled or panicked).
    static bool is_thrown(std::uint8_t tag) noexcept {
        return is_cancelled(tag) || is_panicked(tag);
    }
    /// The exception the task ended by (is_thrown(tag)).
    std::exception_ptr exception() const noexcept { return thrown_; }

    /// Moves the outcome out.
    outcome<T> take(std::uint8_t tag) {
        switch (tag) {
            case tag_of(state::ok):
                return outcome<T>(std::in_place_index<0>, std::move(value_));
            case tag_of(state::cancelled):
                return outcome<T>(std::in_place_index<2>, reason_of(thrown_));
            case tag_of(state::panicked):
                return outcome<T>(std::in_place_index<3>, std::move(thrown_));
            default:
                return outcome<T>();
        }
    }

    /// Ends the member `tag` says is alive, and sets the tag to 0.
    void destroy(std::uint8_t& tag) noexcept {
        switch (tag) {
            case tag_of(state::ok):
                value_.~T();
                break;
            case tag_of(state::cancelled):
            case tag_of(state::panicked):
                thrown_.~exception_ptr();
                break;
            default:
                break;
        }
        tag = 0;
    }

  private:
    /// Whether `thrown` is a task_cancelled. Its exact type, read without
    /// throwing, answers for the kernel's own; only another type (a panic, or
    /// a class derived from task_cancelled) is rethrown to ask. A rethrow for
    /// every cancelled frame would double what unwinding a cancelled task
    /// costs.
    static bool is_cancellation(const std::exception_ptr& thrown) noexcept {
        if (const std::type_info* type = thrown.__cxa_exception_type();
            type && *type == typeid(task_cancelled))
            return true;
        try {
            std::rethrow_exception(thrown);
        } catch (const task_cancelled&) {
            return true;
        } catch (...) {
            return false;
        }
    }
    /// The reason a task_cancelled carries, read when somebody takes the outcome.
    static std::unique_ptr<cancel_reason> reason_of(const std::exception_ptr& thrown) {
        try {
            std::rethrow_exception(thrown);
        } catch (const task_cancelled& c) {
            return std::make_unique<cancel_reason>(c.reason());
        } catch (...) {
            return std::make_unique<cancel_reason>();  // not reached: classified as cancelled
        }
    }

    static constexpr std::uint8_t tag_of(state s) noexcept {
        return static_cast<std::uint8_t>(static_cast<int>(s) + 1);
    }
    // The tag shares a word with a suspended task's leaf pointer, whose first
    // byte (its lowest on a little-endian machine) must never read as a tag
    // (task_header::outcome_tag).
    static_assert(tag_of(state::panicked) < alignof(leaf_check) && alignof(leaf_check) >= 8);
    static_assert(std::endian::native == std::endian::little);

    union {
        T value_;
        std::exception_ptr thrown_;  ///< cancelled: a task_cancelled; panicked: anything
    };
};

}  // namespace rtkit::detail
