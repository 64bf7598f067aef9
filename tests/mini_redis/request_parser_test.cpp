// The request parser on its own: both forms, requests split at every byte and
// many in one buffer, and every bound and malformation refused with redis's
// words.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "request_parser.hpp"
#include "text.hpp"

using mini_redis::request_limits;
using mini_redis::request_parser;
using result = request_parser::result;

namespace {

using words = std::vector<std::string>;

words args_of(const request_parser& parser) {
    return words(parser.args().begin(), parser.args().end());
}

/// Feeds `stream` to a parser the way a connection does, `step` bytes more
/// at a time (the unconsumed bytes again each time), and returns every
/// request it completed. Fails the test on a malformed request.
std::vector<words> parse_in_steps(const std::string& stream, std::size_t step,
                                  const request_limits& limits = {}) {
    request_parser parser(limits);
    std::vector<words> requests;
    std::size_t consumed = 0, received = 0;
    while (received < stream.size()) {
        received = std::min(stream.size(), received + step);
        while (consumed < received) {
            const result r =
                parser.parse(std::string_view(stream).substr(consumed, received - consumed));
            INFO(parser.error());
            REQUIRE(r != result::malformed);
            if (r == result::incomplete) {
                CHECK(parser.bytes_needed() > received - consumed);
                break;
            }
            requests.push_back(args_of(parser));
            consumed += parser.consumed();
        }
    }
    CHECK(consumed == stream.size());
    return requests;
}

/// The error for `bytes`, which must be malformed (given whole).
std::string error_for(const std::string& bytes, const request_limits& limits = {}) {
    request_parser parser(limits);
    const result r = parser.parse(bytes);
    REQUIRE(r == result::malformed);
    return parser.error();
}

}  // namespace

TEST_CASE(
    "request parser: RESP arrays and inline lines - whole - split at every byte - many at once") {
    const std::string stream =
        "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$12\r\nhello\r\nworld\r\n"  // CRLF inside a bulk string
        "PING\r\n"
        "*1\r\n$4\r\nPING\r\n"
        "SET \"two words\" 'it\\'s' \"\\x41\\n\"\n"  // bare LF ends an inline line too
        "*2\r\n$3\r\nGET\r\n$0\r\n\r\n"              // an empty argument
        "*0\r\n"                                     // an empty request
        "   \r\n"                                    // a blank line: an empty request
        "*-1\r\n";
    const std::vector<words> expected = {
        {"SET", "key", "hello\r\nworld"},
        {"PING"},
        {"PING"},
        {"SET", "two words", "it's", "A\n"},
        {"GET", ""},
        {},
        {},
        {},
    };
    for (std::size_t step : {stream.size(), std::size_t{1}, std::size_t{2}, std::size_t{7}}) {
        INFO("step " << step);
        CHECK(parse_in_steps(stream, step) == expected);
    }
}

TEST_CASE("request parser: a big bulk string says how many bytes it needs from its header on") {
    request_parser parser(request_limits{});
    const std::string header = "*2\r\n$3\r\nGET\r\n$100000\r\n";
    REQUIRE(parser.parse(header) == result::incomplete);
    CHECK(parser.bytes_needed() == header.size() + 100000 + 2);
    const std::string whole = header + std::string(100000, 'x') + "\r\n";
    REQUIRE(parser.parse(whole) == result::complete);
    CHECK(parser.consumed() == whole.size());
    CHECK(parser.args()[1].size() == 100000);
}

TEST_CASE("request parser: malformed requests get redis's protocol errors") {
    CHECK(error_for("*abc\r\n") == "Protocol error: invalid multibulk length");
    CHECK(error_for("*3000000000\r\n") == "Protocol error: invalid multibulk length");
    CHECK(error_for("*2\r\n+foo\r\n") == "Protocol error: expected '$', got '+'");
    CHECK(error_for("*1\r\n$abc\r\n") == "Protocol error: invalid bulk length");
    CHECK(error_for("*1\r\n$-5\r\n") == "Protocol error: invalid bulk length");
    CHECK(error_for("*1\r\n$01\r\n") == "Protocol error: invalid bulk length");
    CHECK(error_for("*1\r\n$4\r\nPINGxx") ==
          "Protocol error: a bulk string is not followed by CRLF");
    CHECK(error_for("GET \"a\r\n") == "Protocol error: unbalanced quotes in request");
    CHECK(error_for("GET 'a'b\r\n") == "Protocol error: unbalanced quotes in request");
}

TEST_CASE("request parser: the bounds are enforced from the headers - before the bytes come") {
    request_limits small;
    small.max_bulk_length = 1024;
    small.max_request_length = 4096;
    small.max_line_length = 64;
    // A bulk length over the limit is refused on its header alone.
    CHECK(error_for("*2\r\n$3\r\nGET\r\n$1025\r\n", small) ==
          "Protocol error: invalid bulk length");
    CHECK(parse_in_steps("*1\r\n$1024\r\n" + std::string(1024, 'x') + "\r\n", 100, small).size() ==
          1);
    // So is a request longer than the query buffer limit, once a header says so.
    std::string many = "*10\r\n";
    for (int i = 0; i < 5; ++i)
        many += "$1000\r\n" + std::string(1000, 'x') + "\r\n";
    CHECK(error_for(many, small) ==
          "Protocol error: request longer than the query buffer limit (4096 bytes)");
    // Lines without an end are refused once they pass the line limit.
    CHECK(error_for(std::string(65, 'x'), small) == "Protocol error: too big inline request");
    CHECK(error_for("*" + std::string(65, '1'), small) ==
          "Protocol error: too big mbulk count string");
    CHECK(error_for("*1\r\n$" + std::string(65, '1'), small) ==
          "Protocol error: too big bulk count string");
    request_parser parser(small);
    CHECK(parser.parse(std::string(64, 'x')) == result::incomplete);
}

TEST_CASE("request words: integers and names as redis reads them") {
    using mini_redis::parse_int64;
    CHECK(parse_int64("0") == 0);
    CHECK(parse_int64("-42") == -42);
    CHECK(parse_int64("9223372036854775807") == INT64_MAX);
    CHECK(parse_int64("-9223372036854775808") == INT64_MIN);
    for (const char* bad : {"", "-", "+1", " 1", "1 ", "01", "-0", "1.5", "9223372036854775808",
                            "123456789012345678901", "0x10"})
        CHECK_MESSAGE(!parse_int64(bad), bad);
    CHECK(mini_redis::equals_ignoring_case("GeT", "get"));
    CHECK(!mini_redis::equals_ignoring_case("gets", "get"));
}
