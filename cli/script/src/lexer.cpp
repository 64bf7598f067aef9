#include "rtkit/script/lexer.hpp"

#include <cstdint>
#include <limits>

#include "rtkit/script/script_error.hpp"

namespace rtkit::script {
namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_word_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_word_char(char c) {
    return is_word_start(c) || is_digit(c);
}

/// Nanoseconds per unit of a duration suffix, or 0 for an unknown suffix.
std::int64_t unit_nanoseconds(std::string_view unit) {
    if (unit == "ns") return 1;
    if (unit == "us") return 1'000;
    if (unit == "ms") return 1'000'000;
    if (unit == "s") return 1'000'000'000;
    return 0;
}

class lexer {
  public:
    explicit lexer(const source_file& file) : file_(file), text_(file.text) {}

    std::vector<token> run() {
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == '\n') {
                newline();
            } else if (c == ' ' || c == '\t' || c == '\r') {
                advance();
            } else if (c == '#') {
                while (at_ < text_.size() && text_[at_] != '\n')
                    advance();
            } else if (is_digit(c)) {
                number();
            } else if (is_word_start(c)) {
                word();
            } else if (c == '"') {
                string();
            } else {
                punctuation(c);
            }
        }
        newline();
        tokens_.push_back(token{token_kind::end_of_file, {}, 0, here()});
        return std::move(tokens_);
    }

  private:
    source_pos here() const { return source_pos{&file_, line_, column_}; }

    [[noreturn]] void fail(source_pos where, std::string message) const {
        throw script_error(error_kind::syntax, where, std::move(message));
    }

    void advance() {
        ++at_;
        ++column_;
    }

    // A line break ends a statement; blank and comment-only lines add nothing.
    void newline() {
        if (!tokens_.empty() && tokens_.back().kind != token_kind::newline)
            tokens_.push_back(token{token_kind::newline, {}, 0, here()});
        if (at_ < text_.size()) {
            ++at_;
            ++line_;
            column_ = 1;
        }
    }

    void number() {
        const source_pos start = here();
        const std::size_t begin = at_;
        constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
        std::int64_t whole = 0;
        while (at_ < text_.size() && is_digit(text_[at_])) {
            const int digit = text_[at_] - '0';
            if (whole > (max - digit) / 10)
                fail(start,
                     "integer literal is too large (the largest is " + std::to_string(max) + ")");
            whole = whole * 10 + digit;
            advance();
        }
        // A fraction makes sense only before a unit: 1.5s, 0.25ms.
        std::int64_t fraction = 0;
        int fraction_digits = 0;
        const bool has_point =
            at_ + 1 < text_.size() && text_[at_] == '.' && is_digit(text_[at_ + 1]);
        if (has_point) {
            advance();
            while (at_ < text_.size() && is_digit(text_[at_])) {
                if (++fraction_digits > 9)
                    fail(start, "a duration has at most 9 digits after the point");
                fraction = fraction * 10 + (text_[at_] - '0');
                advance();
            }
        }
        const std::size_t suffix_start = at_;
        while (at_ < text_.size() && is_word_char(text_[at_]))
            advance();
        const std::string_view suffix = text_.substr(suffix_start, at_ - suffix_start);
        if (suffix.empty()) {
            if (has_point)
                fail(start,
                     "a number with a point needs a duration unit (ns, us, ms or s), "
                     "e.g. 1.5s; integers are whole");
            tokens_.push_back(token{token_kind::integer, {}, whole, start});
            return;
        }
        const std::int64_t unit = unit_nanoseconds(suffix);
        if (unit == 0)
            fail(start, "unknown unit '" + std::string(suffix.substr(0, 8)) +
                            (suffix.size() > 8 ? "...'" : "'") +
                            " after a number (durations use ns, us, ms or s)");
        if (whole > max / unit)
            fail(start, "duration is too long (the longest is about 292 years)");
        std::int64_t scale = 1;
        for (int i = 0; i < fraction_digits; ++i)
            scale *= 10;
        // fraction < 10^9 and unit <= 10^9, so the product fits.
        if (fraction * unit % scale != 0)
            fail(start, "duration is not a whole number of nanoseconds");
        const std::int64_t fraction_nanoseconds = fraction * unit / scale;
        if (whole * unit > max - fraction_nanoseconds)
            fail(start, "duration is too long (the longest is about 292 years)");
        const std::int64_t nanoseconds = whole * unit + fraction_nanoseconds;
        std::string literal(text_.substr(begin, at_ - begin));
        tokens_.push_back(token{token_kind::duration, std::move(literal), nanoseconds, start});
    }

    void word() {
        const source_pos start = here();
        const std::size_t begin = at_;
        while (at_ < text_.size() && is_word_char(text_[at_]))
            advance();
        if (at_ - begin > max_name_bytes)
            fail(start, "a name is at most " + std::to_string(max_name_bytes) +
                            " bytes long, not " + std::to_string(at_ - begin));
        std::string text(text_.substr(begin, at_ - begin));
        const token_kind kind = is_keyword(text) ? token_kind::keyword : token_kind::identifier;
        tokens_.push_back(token{kind, std::move(text), 0, start});
    }

    void string() {
        const source_pos start = here();
        advance();  // the opening quote
        std::string value;
        while (true) {
            if (at_ >= text_.size() || text_[at_] == '\n')
                fail(start, "unterminated string (a string ends with \" on the same line)");
            const char c = text_[at_];
            if (c == '"') {
                advance();
                break;
            }
            if (c == '\\') {
                const source_pos escape = here();
                advance();
                if (at_ >= text_.size() || text_[at_] == '\n')
                    fail(start, "unterminated string (a string ends with \" on the same line)");
                switch (text_[at_]) {
                    case '"':
                        value += '"';
                        break;
                    case '\\':
                        value += '\\';
                        break;
                    case 'n':
                        value += '\n';
                        break;
                    case 't':
                        value += '\t';
                        break;
                    default:
                        fail(escape, std::string("unknown escape '\\") + text_[at_] +
                                         "' (use \\\", \\\\, \\n or \\t)");
                }
                advance();
                continue;
            }
            value += c;
            advance();
        }
        tokens_.push_back(token{token_kind::string, std::move(value), 0, start});
    }

    void punctuation(char c) {
        token_kind kind;
        switch (c) {
            case '{':
                kind = token_kind::left_brace;
                break;
            case '}':
                kind = token_kind::right_brace;
                break;
            case '(':
                kind = token_kind::left_paren;
                break;
            case ')':
                kind = token_kind::right_paren;
                break;
            case '+':
                kind = token_kind::plus;
                break;
            case '-':
                kind = token_kind::minus;
                break;
            case '*':
                kind = token_kind::star;
                break;
            case '/':
                kind = token_kind::slash;
                break;
            case '%':
                kind = token_kind::percent;
                break;
            case '=':
                kind = next_is('=') ? token_kind::equal_equal : token_kind::equals;
                break;
            case '!':
                if (!next_is('='))
                    fail(here(),
                         "unexpected character '!' (write 'not' for negation, '!=' for "
                         "inequality)");
                kind = token_kind::not_equal;
                break;
            case '<':
                kind = next_is('=') ? token_kind::less_equal : token_kind::less;
                break;
            case '>':
                kind = next_is('=') ? token_kind::greater_equal : token_kind::greater;
                break;
            case ',':
                kind = token_kind::comma;
                break;
            case '.':
                kind = token_kind::dot;
                break;
            default: {
                const unsigned char byte = static_cast<unsigned char>(c);
                if (byte < 0x20 || byte >= 0x7f) {
                    static constexpr char hex[] = "0123456789abcdef";
                    fail(here(), std::string("unexpected byte 0x") + hex[byte >> 4] +
                                     hex[byte & 15] + " (outside strings, scripts are ASCII)");
                }
                fail(here(), std::string("unexpected character '") + c + "'");
            }
        }
        tokens_.push_back(token{kind, {}, 0, here()});
        advance();
        if (kind == token_kind::equal_equal || kind == token_kind::not_equal ||
            kind == token_kind::less_equal || kind == token_kind::greater_equal)
            advance();
    }

    bool next_is(char c) const { return at_ + 1 < text_.size() && text_[at_ + 1] == c; }

    const source_file& file_;
    std::string_view text_;
    std::size_t at_ = 0;
    std::uint32_t line_ = 1;
    std::uint32_t column_ = 1;
    std::vector<token> tokens_;
};

}  // namespace

std::vector<token> tokenize(const source_file& file) {
    return lexer(file).run();
}

}  // namespace rtkit::script
