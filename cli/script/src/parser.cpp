#include "rtkit/script/parser.hpp"

#include <algorithm>

#include "rtkit/script/lexer.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::script {
namespace {

/// An expression and the depth of its tree, to enforce max_expression_depth.
struct parsed_expr {
    expr value;
    unsigned depth;
};

// Grammar (one statement per line; a block's braces end and start lines):
//   program   := line*
//   line      := statement? NEWLINE
//   statement := 'let' NAME '=' expr | NAME '=' expr | 'print' expr* | 'sleep' expr
//              | 'yield' | 'join' NAME | 'spawn' NAME block | 'repeat' expr block
//   block     := '{' NEWLINE line* '}'
//   expr      := term (('+' | '-') term)*
//   term      := unary (('*' | '/' | '%') unary)*
//   unary     := '-' unary | primary
//   primary   := INTEGER | DURATION | STRING | NAME | '(' expr ')'
class parser {
  public:
    parser(const source_file& file, std::vector<token> tokens)
        : file_(file), tokens_(std::move(tokens)) {}

    block parse_program() {
        block top{source_pos{&file_, 1, 1}, {}};
        while (peek().kind != token_kind::end_of_file) {
            if (peek().kind == token_kind::right_brace)
                fail(peek().where, "unmatched '}' (no block is open here)");
            top.statements.push_back(statement());
        }
        return top;
    }

  private:
    const token& peek() const { return tokens_[at_]; }
    const token& take() {
        const token& t = tokens_[at_];
        if (t.kind != token_kind::end_of_file) ++at_;
        return t;
    }
    bool is_keyword(std::string_view word) const {
        return peek().kind == token_kind::keyword && peek().text == word;
    }

    [[noreturn]] void fail(source_pos where, std::string message) const {
        throw script_error(error_kind::syntax, where, std::move(message));
    }
    [[noreturn]] void unexpected(std::string_view expected) const {
        fail(peek().where, "expected " + std::string(expected) + ", found " + describe(peek()));
    }

    std::string name(std::string_view after) {
        if (peek().kind == token_kind::keyword)
            fail(peek().where, "'" + peek().text + "' is a keyword and cannot be used as a name");
        if (peek().kind != token_kind::identifier)
            unexpected("a name after '" + std::string(after) + "'");
        return take().text;
    }

    void expect(token_kind kind, std::string_view context) {
        if (peek().kind != kind)
            unexpected(std::string(describe(kind)) + ' ' + std::string(context));
        take();
    }

    void end_of_statement(std::string_view what) {
        if (peek().kind == token_kind::end_of_file) return;
        if (peek().kind != token_kind::newline)
            unexpected("end of line after " + std::string(what) + " (one statement per line)");
        take();
    }

    stmt statement() {
        const token& first = peek();
        const source_pos where = first.where;
        if (first.kind == token_kind::identifier) {
            std::string target = take().text;
            if (peek().kind != token_kind::equals)
                fail(where, "expected a statement, found the name '" + target + "' (assign with '" +
                                target + " = ...', declare with 'let " + target + " = ...')");
            take();
            expr value = expression().value;
            end_of_statement("the assignment");
            return stmt{where, assign_stmt{std::move(target), std::move(value)}};
        }
        if (first.kind != token_kind::keyword) unexpected("a statement");

        const std::string keyword = take().text;
        if (keyword == "let") {
            std::string target = name("let");
            expect(token_kind::equals, "after the name in 'let'");
            expr value = expression().value;
            end_of_statement("'let'");
            return stmt{where, let_stmt{std::move(target), std::move(value)}};
        }
        if (keyword == "print") {
            print_stmt print;
            while (peek().kind != token_kind::newline && peek().kind != token_kind::end_of_file)
                print.arguments.push_back(expression().value);
            end_of_statement("'print'");
            return stmt{where, std::move(print)};
        }
        if (keyword == "sleep") {
            expr duration = expression().value;
            end_of_statement("'sleep'");
            return stmt{where, sleep_stmt{std::move(duration)}};
        }
        if (keyword == "yield") {
            end_of_statement("'yield'");
            return stmt{where, yield_stmt{}};
        }
        if (keyword == "join") {
            std::string task = name("join");
            end_of_statement("'join'");
            return stmt{where, join_stmt{std::move(task)}};
        }
        if (keyword == "spawn") {
            std::string task = name("spawn");
            block task_body = body("'spawn " + task + "'");
            return stmt{where, spawn_stmt{std::move(task), std::move(task_body)}};
        }
        if (keyword == "repeat") {
            expr count = expression().value;
            block repeat_body = body("'repeat'");
            return stmt{where, repeat_stmt{std::move(count), std::move(repeat_body)}};
        }
        fail(where, "'" + keyword + "' is not supported yet");
    }

    block body(const std::string& owner) {
        if (peek().kind != token_kind::left_brace) unexpected("'{' to open the block of " + owner);
        const source_pos open = take().where;
        if (++block_depth_ > max_block_depth)
            fail(open, "blocks are nested too deeply (the limit is " +
                           std::to_string(max_block_depth) + ")");
        if (peek().kind != token_kind::newline)
            unexpected("end of line after '{' (a block's statements start on the next line)");
        take();
        block b{open, {}};
        while (peek().kind != token_kind::right_brace) {
            if (peek().kind == token_kind::end_of_file)
                fail(open, "this '{' is never closed (expected '}' on a line of its own)");
            b.statements.push_back(statement());
        }
        take();
        end_of_statement("'}'");
        --block_depth_;
        return b;
    }

    parsed_expr expression() {
        parsed_expr left = term();
        while (peek().kind == token_kind::plus || peek().kind == token_kind::minus) {
            const token& op = take();
            left = binary(op, op.kind == token_kind::plus ? binary_op::add : binary_op::subtract,
                          std::move(left), term());
        }
        return left;
    }

    parsed_expr term() {
        parsed_expr left = unary();
        while (peek().kind == token_kind::star || peek().kind == token_kind::slash ||
               peek().kind == token_kind::percent) {
            const token& op = take();
            const binary_op kind = op.kind == token_kind::star    ? binary_op::multiply
                                   : op.kind == token_kind::slash ? binary_op::divide
                                                                  : binary_op::remainder;
            left = binary(op, kind, std::move(left), unary());
        }
        return left;
    }

    parsed_expr binary(const token& op, binary_op kind, parsed_expr left, parsed_expr right) {
        const unsigned depth = 1 + std::max(left.depth, right.depth);
        check_depth(op.where, depth);
        // Positioned at the operator: that is where "division by zero" points.
        const source_pos where = op.where;
        return parsed_expr{
            expr{where, binary_expr{kind, std::make_unique<expr>(std::move(left.value)),
                                    std::make_unique<expr>(std::move(right.value))}},
            depth};
    }

    void check_depth(source_pos where, unsigned depth) const {
        if (depth > max_expression_depth)
            fail(where, "expression is nested too deeply (the limit is " +
                            std::to_string(max_expression_depth) + " levels)");
    }

    parsed_expr unary() {
        if (peek().kind == token_kind::minus) {
            const source_pos where = take().where;
            // Checked before recursing, so "- - - ... x" cannot exhaust the stack.
            check_depth(where, ++nesting_);
            parsed_expr operand = unary();
            --nesting_;
            const unsigned depth = operand.depth + 1;
            check_depth(where, depth);
            return parsed_expr{
                expr{where, unary_expr{unary_op::negate,
                                       std::make_unique<expr>(std::move(operand.value))}},
                depth};
        }
        return primary();
    }

    parsed_expr primary() {
        const token& t = peek();
        switch (t.kind) {
            case token_kind::integer:
                take();
                return {expr{t.where, integer_literal{t.number}}, 1};
            case token_kind::duration:
                take();
                return {expr{t.where, duration_literal{std::chrono::nanoseconds(t.number), t.text}},
                        1};
            case token_kind::string:
                take();
                return {expr{t.where, string_literal{t.text}}, 1};
            case token_kind::identifier:
                take();
                return {expr{t.where, variable_ref{t.text}}, 1};
            case token_kind::left_paren: {
                const source_pos open = take().where;
                check_depth(open, ++nesting_);
                parsed_expr inner = expression();
                --nesting_;
                if (peek().kind != token_kind::right_paren)
                    unexpected("')' to close the '(' at " + std::to_string(open.line) + ':' +
                               std::to_string(open.column));
                take();
                return inner;
            }
            default:
                unexpected("an expression");
        }
    }

    const source_file& file_;
    std::vector<token> tokens_;
    std::size_t at_ = 0;
    unsigned block_depth_ = 0;
    unsigned nesting_ = 0;  ///< open parentheses and prefix minuses
};

}  // namespace

program parse(std::shared_ptr<const source_file> file) {
    parser p(*file, tokenize(*file));
    block body = p.parse_program();
    return program{std::move(file), std::move(body)};
}

program parse(std::string name, std::string text) {
    return parse(
        std::make_shared<const source_file>(source_file{std::move(name), std::move(text)}));
}

}  // namespace rtkit::script
