#pragma once
// Writing RESP2 replies.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace mini_redis {

/// Appends RESP2 replies to a connection's pending output, one call per value.
class reply {
  public:
    explicit reply(std::string& out) noexcept : out_(out) {}

    /// "+OK\r\n"
    void simple(std::string_view text) { line('+', text); }
    /// "-ERR ...\r\n". `text` starts with the error code ("ERR", "WRONGTYPE");
    /// a CR or LF in it (an echoed argument) becomes a space, as redis does,
    /// since either would end the error line early.
    void error(std::string_view text) {
        const std::size_t at = out_.size() + 1;
        line('-', text);
        for (std::size_t i = at; i < out_.size() - 2; ++i)
            if (out_[i] == '\r' || out_[i] == '\n') out_[i] = ' ';
    }
    /// ":42\r\n"
    void integer(std::int64_t value) { number(':', value); }
    /// "$3\r\nabc\r\n"
    void bulk(std::string_view data) {
        number('$', static_cast<std::int64_t>(data.size()));
        out_.append(data);
        out_.append("\r\n");
    }
    /// "$-1\r\n": a missing value.
    void null() { out_.append("$-1\r\n"); }
    /// "*2\r\n": an array of this many replies, which follow.
    void array(std::size_t size) { number('*', static_cast<std::int64_t>(size)); }

  private:
    void line(char type, std::string_view text) {
        out_.push_back(type);
        out_.append(text);
        out_.append("\r\n");
    }
    void number(char type, std::int64_t value) {
        char text[24];
        text[0] = type;
        char* end = std::to_chars(text + 1, text + sizeof text - 2, value).ptr;
        *end++ = '\r';
        *end++ = '\n';
        out_.append(text, end);
    }

    std::string& out_;
};

}  // namespace mini_redis
