#pragma once
// The tokens of the script language.
#include <cstdint>
#include <string>
#include <string_view>

#include "rtkit/script/source.hpp"

namespace rtkit::script {

enum class token_kind {
    end_of_file,
    newline,  ///< statements end at a newline
    identifier,
    keyword,   ///< a reserved word; text holds it
    integer,   ///< number holds the value
    duration,  ///< number holds nanoseconds, text the literal as written
    string,    ///< text holds the value, escapes decoded
    left_brace,
    right_brace,
    left_paren,
    right_paren,
    plus,
    minus,
    star,
    slash,
    percent,
    equals,       ///< '=' (assignment)
    equal_equal,  ///< '=='
    not_equal,    ///< '!='
    less,
    less_equal,
    greater,
    greater_equal,
    comma,
    dot,
};

struct token {
    token_kind kind = token_kind::end_of_file;
    std::string text;
    std::int64_t number = 0;
    source_pos where;
};

/// How a token kind is named in "expected X, found Y" messages.
std::string_view describe(token_kind kind) noexcept;

/// describe(kind) or, for words and literals, the token itself quoted.
std::string describe(const token& t);

/// Whether `word` is reserved (a statement, an operation or a literal such as
/// `true`), and so cannot name a variable or a function.
bool is_keyword(std::string_view word) noexcept;

}  // namespace rtkit::script
