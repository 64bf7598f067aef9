#pragma once
// Reading a Chrome trace-event JSON file (`{"traceEvents": [...]}`, as
// `rtctl run --trace` writes it) one event at a time, so that a trace larger
// than memory can be summarised.
#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rtctl {

/// Why a file is not a trace rtctl can read: the message says what and
/// where (the event's index in traceEvents, or the JSON's line and column).
class trace_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Calls `on_event(event, index)` for each object of the top-level
/// "traceEvents" array, in order (the other top-level keys are skipped).
/// Throws trace_error for input that is not JSON, not an object, has no
/// traceEvents array or an event that is not an object; on_event may throw
/// trace_error too (an event without a field it needs), which gets the
/// event's index in its message.
void read_trace_events(
    std::istream& in,
    const std::function<void(const nlohmann::json& event, std::size_t index)>& on_event);

/// The event's field `name` as a T (a number or a string); throws
/// trace_error naming the field when it is missing or of another type.
template <typename T>
T trace_field(const nlohmann::json& event, const char* name) {
    const auto found = event.find(name);
    if (found != event.end()) {
        if constexpr (std::is_same_v<T, std::string>) {
            if (found->is_string()) return found->template get<std::string>();
        } else if constexpr (std::is_same_v<T, bool>) {
            if (found->is_boolean()) return found->template get<bool>();
        } else {
            if (found->is_number()) return found->template get<T>();
        }
    }
    throw trace_error(std::string("'") + name + "' is missing or not a " +
                      (std::is_same_v<T, std::string> ? "string"
                       : std::is_same_v<T, bool>      ? "boolean"
                                                      : "number"));
}

}  // namespace rtctl
