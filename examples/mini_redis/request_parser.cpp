#include "request_parser.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "inline_words.hpp"
#include "text.hpp"

namespace mini_redis {

request_parser::result request_parser::parse(std::string_view input) {
    args_.clear();
    consumed_ = 0;
    if (form_ == form::unknown) {
        if (input.empty()) return incomplete(1);
        form_ = input[0] == '*' ? form::array : form::inline_words;
    }
    return form_ == form::array ? parse_array(input) : parse_inline(input);
}

request_parser::result request_parser::parse_array(std::string_view input) {
    std::size_t line_end = 0;
    if (position_ == 0) {  // the "*<count>\r\n" header
        switch (find_line_end(input, 1, line_end)) {
            case line_search::incomplete:
                return incomplete(input.size() + 1);
            case line_search::too_long:
                return malformed("Protocol error: too big mbulk count string");
            case line_search::found:
                break;
        }
        const auto count = parse_int64(input.substr(1, line_end - 1));
        if (!count || *count > INT_MAX)
            return malformed("Protocol error: invalid multibulk length");
        position_ = line_end + 2;
        if (*count <= 0) {  // "*0" and "*-1": an empty request
            consumed_ = position_;
            start_next();
            return result::complete;
        }
        elements_left_ = *count;
        elements_.clear();
        elements_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(*count, 1024)));
    }
    while (elements_left_ > 0) {
        if (bulk_length_ < 0) {  // the "$<length>\r\n" header
            if (input.size() <= position_) return incomplete(position_ + 1);
            if (input[position_] != '$')
                return malformed(std::string("Protocol error: expected '$', got '") +
                                 input[position_] + "'");
            switch (find_line_end(input, position_ + 1, line_end)) {
                case line_search::incomplete:
                    return incomplete(input.size() + 1);
                case line_search::too_long:
                    return malformed("Protocol error: too big bulk count string");
                case line_search::found:
                    break;
            }
            const auto length = parse_int64(input.substr(position_ + 1, line_end - position_ - 1));
            if (!length || *length < 0 ||
                static_cast<std::uint64_t>(*length) > limits_.max_bulk_length)
                return malformed("Protocol error: invalid bulk length");
            bulk_length_ = *length;
            position_ = line_end + 2;
        }
        const std::size_t end = position_ + static_cast<std::size_t>(bulk_length_);
        if (end + 2 > limits_.max_request_length)
            return malformed("Protocol error: request longer than the query buffer limit (" +
                             std::to_string(limits_.max_request_length) + " bytes)");
        if (input.size() < end + 2) return incomplete(end + 2);
        if (input[end] != '\r' || input[end + 1] != '\n')
            return malformed("Protocol error: a bulk string is not followed by CRLF");
        elements_.emplace_back(position_, static_cast<std::size_t>(bulk_length_));
        position_ = end + 2;
        bulk_length_ = -1;
        --elements_left_;
    }
    for (const auto& [offset, length] : elements_)
        args_.emplace_back(input.data() + offset, length);
    consumed_ = position_;
    start_next();
    return result::complete;
}

request_parser::result request_parser::parse_inline(std::string_view input) {
    const std::size_t scan_from = std::min(searched_to_, input.size());
    const void* newline = std::memchr(input.data() + scan_from, '\n', input.size() - scan_from);
    if (!newline) {
        if (input.size() > limits_.max_line_length)
            return malformed("Protocol error: too big inline request");
        searched_to_ = input.size();
        return incomplete(input.size() + 1);
    }
    const auto newline_at =
        static_cast<std::size_t>(static_cast<const char*>(newline) - input.data());
    std::string_view line = input.substr(0, newline_at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!split_inline_words(line, inline_words_))
        return malformed("Protocol error: unbalanced quotes in request");
    for (const std::string& word : inline_words_)
        args_.emplace_back(word);
    consumed_ = newline_at + 1;
    start_next();
    return result::complete;
}

request_parser::line_search request_parser::find_line_end(std::string_view input, std::size_t from,
                                                          std::size_t& line_end) {
    // "\r\n" may be split over two reads: look for the '\r' from one byte
    // before where the last search ended.
    std::size_t at = std::max(from, searched_to_ > 0 ? searched_to_ - 1 : 0);
    while (at < input.size()) {
        const void* cr = std::memchr(input.data() + at, '\r', input.size() - at);
        if (!cr) break;
        at = static_cast<std::size_t>(static_cast<const char*>(cr) - input.data());
        if (at + 1 == input.size()) break;  // the '\n' has not come yet
        if (input[at + 1] == '\n') {
            if (at - from > limits_.max_line_length) return line_search::too_long;
            line_end = at;
            searched_to_ = 0;
            return line_search::found;
        }
        ++at;
    }
    if (input.size() - from > limits_.max_line_length) return line_search::too_long;
    searched_to_ = input.size();
    return line_search::incomplete;
}

request_parser::result request_parser::incomplete(std::size_t needed) noexcept {
    needed_ = needed;
    return result::incomplete;
}

request_parser::result request_parser::malformed(std::string message) {
    error_ = std::move(message);
    start_next();
    return result::malformed;
}

void request_parser::start_next() noexcept {
    form_ = form::unknown;
    position_ = 0;
    searched_to_ = 0;
    elements_left_ = 0;
    bulk_length_ = -1;
}

}  // namespace mini_redis
