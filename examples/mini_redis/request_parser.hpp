#pragma once
// mini_redis::request_parser: requests out of a byte stream, in RESP2 or in
// the inline form.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mini_redis {

/// The bounds a request must keep. A request past one is malformed, and that
/// is found out from its headers, before anything is allocated for it.
struct request_limits {
    /// The longest bulk string (redis's proto-max-bulk-len).
    std::size_t max_bulk_length = std::size_t{512} << 20;
    /// The longest request, headers included (redis's client-query-buffer-limit).
    std::size_t max_request_length = std::size_t{1} << 30;
    /// The longest inline request or header line (redis's PROTO_INLINE_MAX_SIZE).
    std::size_t max_line_length = std::size_t{64} << 10;
};

/// Parses requests one at a time from the bytes a connection received and has
/// not consumed yet. Incremental: a request split over many reads is parsed
/// as its bytes come, and what was parsed is not scanned again.
///
/// Two forms, as redis reads them: RESP2 arrays of bulk strings
/// ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", what clients send), and the inline form,
/// a line of words ("GET k\r\n", what a terminal user or redis-benchmark's
/// PING_INLINE sends) with "double" (escapes: \n \r \t \b \a \xHH) and
/// 'single' quotes.
class request_parser {
  public:
    enum class result {
        complete,    ///< args() holds a request that took consumed() bytes
        incomplete,  ///< more bytes are needed: the request is at least bytes_needed() long
        malformed,   ///< error() says why; the connection cannot go on after it
    };

    explicit request_parser(const request_limits& limits) noexcept : limits_(limits) {}

    /// Parses the request at the start of `input`: the bytes not consumed yet,
    /// and after `incomplete` the same bytes again with more after them (they
    /// may have moved in memory).
    result parse(std::string_view input);

    /// The complete request's words; empty for an empty request ("*0\r\n" or a
    /// blank line), which gets no reply. Valid until the next parse(), while
    /// the input's bytes stay where they were.
    std::span<const std::string_view> args() const noexcept { return args_; }
    std::size_t consumed() const noexcept { return consumed_; }
    /// After `incomplete`: the request has at least this many bytes.
    std::size_t bytes_needed() const noexcept { return needed_; }
    /// After `malformed`: what is wrong, as redis says it ("Protocol error: ...").
    const std::string& error() const noexcept { return error_; }

  private:
    enum class form : std::uint8_t { unknown, array, inline_words };
    enum class line_search : std::uint8_t { found, incomplete, too_long };

    result parse_array(std::string_view input);
    result parse_inline(std::string_view input);
    /// Looks for the "\r\n" that ends the line starting at `from`; on `found`,
    /// `line_end` is the offset of its '\r'. Resumes where the last search of
    /// the same line stopped.
    line_search find_line_end(std::string_view input, std::size_t from, std::size_t& line_end);
    result incomplete(std::size_t needed) noexcept;
    result malformed(std::string message);
    /// Forgets the request just parsed (or given up on).
    void start_next() noexcept;

    request_limits limits_;

    // The request being parsed, kept across `incomplete` results.
    form form_ = form::unknown;
    std::size_t position_ = 0;        ///< where parsing resumes, from the request's start
    std::size_t searched_to_ = 0;     ///< a line end is not before this offset
    std::int64_t elements_left_ = 0;  ///< array elements not parsed yet
    std::int64_t bulk_length_ = -1;   ///< the next bulk string's length, once its header is read
    std::vector<std::pair<std::size_t, std::size_t>> elements_;  ///< offset and length of each

    // The outcome of the last parse().
    std::vector<std::string_view> args_;
    std::vector<std::string> inline_words_;  ///< the inline form's words, unquoted
    std::size_t consumed_ = 0;
    std::size_t needed_ = 0;
    std::string error_;
};

}  // namespace mini_redis
