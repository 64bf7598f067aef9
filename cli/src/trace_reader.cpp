#include "trace_reader.hpp"

#include <vector>

namespace rtctl {
namespace {

using json = nlohmann::json;

/// nlohmann-json's SAX events, turned into one json value per element of
/// traceEvents; everything else is skipped without being kept.
class trace_events_sax : public nlohmann::json_sax<json> {
  public:
    explicit trace_events_sax(const std::function<void(const json&, std::size_t)>& on_event)
        : on_event_(on_event) {}

    bool null() override { return scalar(nullptr); }
    bool boolean(bool value) override { return scalar(value); }
    bool number_integer(number_integer_t value) override { return scalar(value); }
    bool number_unsigned(number_unsigned_t value) override { return scalar(value); }
    bool number_float(number_float_t value, const string_t&) override { return scalar(value); }
    bool string(string_t& value) override { return scalar(std::move(value)); }
    bool binary(binary_t& value) override { return scalar(json::binary(std::move(value))); }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(string_t& name) override {
        if (!building_.empty())
            key_ = name;
        else if (depth_ == 1)
            root_key_ = name;
        return true;
    }

    bool parse_error(std::size_t, const std::string&,
                     const nlohmann::detail::exception& error) override {
        // "[json.exception.parse_error.101] parse error at line 1, ..." without its tag.
        std::string message = error.what();
        if (const std::size_t tag_end = message.find("] "); tag_end != std::string::npos)
            message.erase(0, tag_end + 2);
        throw trace_error("not valid JSON: " + message);
    }

    /// After the parse: the file had a traceEvents array.
    bool saw_events() const { return saw_events_; }

  private:
    bool in_events_array() const { return in_events_ && depth_ == 2; }

    /// A new value inside the event being built.
    json* add(json value) {
        json& parent = *building_.back();
        if (parent.is_object()) return &(parent[key_] = std::move(value));
        parent.push_back(std::move(value));
        return &parent.back();
    }

    bool scalar(json value) {
        if (!building_.empty())
            add(std::move(value));
        else if (depth_ == 0)
            throw trace_error(not_a_trace);
        else if (in_events_array())
            throw trace_error("event " + std::to_string(index_) + " is not an object");
        return true;
    }

    bool open(json container) {
        const bool is_array = container.is_array();
        if (!building_.empty()) {
            building_.push_back(add(std::move(container)));
        } else if (depth_ == 0) {
            if (is_array) throw trace_error(not_a_trace);
        } else if (depth_ == 1 && root_key_ == "traceEvents") {
            if (!is_array)
                throw trace_error(std::string("'traceEvents' is not an array; ") + expected);
            in_events_ = saw_events_ = true;
        } else if (in_events_array()) {
            if (is_array)
                throw trace_error("event " + std::to_string(index_) + " is not an object");
            event_ = std::move(container);
            building_.push_back(&event_);
        }
        ++depth_;
        return true;
    }

    bool close() {
        --depth_;
        if (!building_.empty()) {
            building_.pop_back();
            if (building_.empty()) {
                try {
                    on_event_(event_, index_);
                } catch (const trace_error& e) {
                    throw trace_error(
                        "event " + std::to_string(index_) + " (" +
                        event_.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 120) +
                        "): " + e.what());
                }
                ++index_;
            }
        } else if (depth_ == 1) {
            in_events_ = false;
        }
        return true;
    }

    static constexpr const char* expected =
        "a trace is a JSON object whose \"traceEvents\" array holds the events (Chrome "
        "trace-event format, as rtctl run --trace writes it)";
    inline static const std::string not_a_trace = std::string("not a trace: ") + expected;

    const std::function<void(const json&, std::size_t)>& on_event_;
    int depth_ = 0;  // containers open around the current value
    std::string root_key_;
    bool in_events_ = false;
    bool saw_events_ = false;
    std::size_t index_ = 0;
    json event_;
    std::vector<json*> building_;  // the event, then the containers open inside it
    std::string key_;
};

}  // namespace

void read_trace_events(std::istream& in,
                       const std::function<void(const json&, std::size_t)>& on_event) {
    trace_events_sax sax(on_event);
    json::sax_parse(in, &sax);
    if (!sax.saw_events())
        throw trace_error(
            "not a trace: no \"traceEvents\" array (Chrome trace-event format, as rtctl run "
            "--trace writes it)");
}

}  // namespace rtctl
