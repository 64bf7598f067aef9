#include "rtkit/script/token.hpp"

#include <algorithm>
#include <array>

namespace rtkit::script {

std::string_view describe(token_kind kind) noexcept {
    switch (kind) {
        case token_kind::end_of_file:
            return "end of file";
        case token_kind::newline:
            return "end of line";
        case token_kind::identifier:
            return "a name";
        case token_kind::keyword:
            return "a keyword";
        case token_kind::integer:
            return "an integer";
        case token_kind::duration:
            return "a duration";
        case token_kind::string:
            return "a string";
        case token_kind::left_brace:
            return "'{'";
        case token_kind::right_brace:
            return "'}'";
        case token_kind::left_paren:
            return "'('";
        case token_kind::right_paren:
            return "')'";
        case token_kind::plus:
            return "'+'";
        case token_kind::minus:
            return "'-'";
        case token_kind::star:
            return "'*'";
        case token_kind::slash:
            return "'/'";
        case token_kind::percent:
            return "'%'";
        case token_kind::equals:
            return "'='";
        case token_kind::equal_equal:
            return "'=='";
        case token_kind::not_equal:
            return "'!='";
        case token_kind::less:
            return "'<'";
        case token_kind::less_equal:
            return "'<='";
        case token_kind::greater:
            return "'>'";
        case token_kind::greater_equal:
            return "'>='";
        case token_kind::comma:
            return "','";
        case token_kind::dot:
            return "'.'";
    }
    return "a token";
}

std::string describe(const token& t) {
    switch (t.kind) {
        case token_kind::identifier:
        case token_kind::keyword:
        case token_kind::duration:
            return "'" + t.text + "'";
        case token_kind::integer: {
            // Appended, not "'" + std::string&&: GCC 12 -O3 warns falsely (-Wrestrict).
            std::string quoted(1, '\'');
            quoted += std::to_string(t.number);
            quoted += '\'';
            return quoted;
        }
        default:
            return std::string(describe(t.kind));
    }
}

bool is_keyword(std::string_view word) noexcept {
    static constexpr std::array<std::string_view, 48> keywords{
        "accept",    "acquire",  "and",       "as",       "assert", "break",  "broadcast", "cancel",
        "channel",   "close",    "connect",   "continue", "else",   "fail",   "false",     "fn",
        "if",        "interval", "join",      "join_all", "let",    "listen", "loop",      "none",
        "not",       "now",      "or",        "print",    "race",   "read",   "recv",      "region",
        "repeat",    "return",   "semaphore", "send",     "signal", "sleep",  "spawn",     "spin",
        "subscribe", "tick",     "timeout",   "true",     "watch",  "while",  "write",     "yield"};
    return std::find(keywords.begin(), keywords.end(), word) != keywords.end();
}

}  // namespace rtkit::script
