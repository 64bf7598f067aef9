#include "rtkit/script/parser.hpp"

#include <algorithm>
#include <utility>

#include "rtkit/config/closest_match.hpp"
#include "rtkit/script/lexer.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::script {
namespace {

/// An expression and the depth of its tree, to enforce max_expression_depth.
struct parsed_expr {
    expr value;
    unsigned depth;
};

/// A call seen while parsing, checked against the declared functions at the end.
struct call_site {
    std::string function;
    std::size_t arguments;
    source_pos where;
};

// Grammar (one statement per line; a block's `{` ends its line and its `}`
// starts one, followed by the end of the line, `else` or `or`):
//   program    := line*
//   line       := statement? NEWLINE
//   statement  := 'let' NAME '=' value | NAME '=' value | 'print' expr*
//               | 'assert' expr expr? | 'fail' expr | 'sleep' expr | 'spin' expr | 'yield'
//               | 'if' expr block ('else' 'if' expr block)* ('else' block)?
//               | 'while' expr block | 'loop' block | 'repeat' expr ('as' NAME)? block
//               | 'break' | 'continue' | 'return' value?
//               | 'fn' NAME '(' (NAME (',' NAME)*)? ')' block          (top level only)
//               | 'spawn' NAME block | 'cancel' expr expr? | 'region' block
//               | 'timeout' expr block ('else' block)? | 'acquire' expr block
//               | 'send' expr value | 'close' expr | 'write' expr expr
//               | value        (a call, join, join_all, recv, tick, race or spawn)
//   block      := '{' NEWLINE line* '}'
//   value      := spawn | race | expr     (spawn and race only as a whole value)
//   spawn      := 'spawn' NAME block | 'spawn' call
//   race       := 'race' block ('or' block)+
//   expr       := and ('or' and)*
//   and        := not ('and' not)*
//   not        := 'not' not | comparison
//   comparison := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?
//   sum        := term (('+' | '-') term)*
//   term       := unary (('*' | '/' | '%') unary)*
//   unary      := '-' unary | ('join' | 'recv' | 'listen' | 'accept' | 'read' | 'tick'
//                             | 'subscribe') unary
//               | 'connect' unary ('timeout' unary)? | postfix
//   postfix    := primary ('.' NAME)*
//   primary    := INTEGER | DURATION | STRING | 'true' | 'false' | 'none' | 'now' | NAME
//               | call | '(' expr ')' | ('channel' | 'semaphore' | 'broadcast' | 'watch') '(' expr
//               ')' | 'interval' '(' expr (',' expr)? ')' | 'join_all' ('(' (expr (',' expr)*)?
//               ')')?
//               | 'signal' '(' expr (',' expr)* ')'
//   call       := NAME '(' (expr (',' expr)*)? ')'   (no space before the '(')
class parser {
  public:
    parser(const source_file& file, std::vector<token> tokens)
        : file_(file), tokens_(std::move(tokens)) {}

    void parse_into(program& p) {
        p.body = block{source_pos{&file_, 1, 1}, {}};
        while (peek().kind != token_kind::end_of_file) {
            if (peek().kind == token_kind::right_brace)
                fail(peek().where, "unmatched '}' (no block is open here)");
            if (at_keyword("fn")) {
                function_declaration(p);
                continue;
            }
            p.body.statements.push_back(statement());
        }
        check_calls(p);
    }

  private:
    // ---- the token cursor ----

    const token& peek(std::size_t ahead = 0) const {
        return tokens_[std::min(at_ + ahead, tokens_.size() - 1)];
    }
    const token& take() {
        const token& t = tokens_[at_];
        if (t.kind != token_kind::end_of_file) ++at_;
        return t;
    }
    bool at_keyword(std::string_view word, std::size_t ahead = 0) const {
        return peek(ahead).kind == token_kind::keyword && peek(ahead).text == word;
    }
    /// A call is a name with '(' right after it: "f(x)". With a space, "f (x)"
    /// is the name and then a parenthesised value, as print and send read it.
    bool call_at(std::size_t ahead = 0) const {
        const token& name = peek(ahead);
        const token& paren = peek(ahead + 1);
        return name.kind == token_kind::identifier && paren.kind == token_kind::left_paren &&
               paren.where.line == name.where.line &&
               paren.where.column == name.where.column + name.text.size();
    }
    bool at_line_end() const {
        return peek().kind == token_kind::newline || peek().kind == token_kind::end_of_file;
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
        if (peek().kind != token_kind::identifier) unexpected("a name after " + std::string(after));
        return take().text;
    }

    void expect(token_kind kind, std::string_view context) {
        if (peek().kind != kind)
            unexpected(std::string(describe(kind)) + ' ' + std::string(context));
        take();
    }

    void end_of_statement(std::string_view what) {
        if (peek().kind == token_kind::end_of_file) return;
        if (peek().kind != token_kind::newline) {
            // After a block, say so: the '}' is what the reader sees last.
            const bool after_block = at_ > 0 && tokens_[at_ - 1].kind == token_kind::right_brace;
            unexpected("end of line after " + std::string(after_block ? "'}'" : what) +
                       " (one statement per line)");
        }
        take();
    }

    // ---- statements ----

    stmt statement() {
        const token& first = peek();
        const source_pos where = first.where;
        if (first.kind == token_kind::identifier) {
            if (call_at()) return expression_statement(where);
            std::string target = take().text;
            if (peek().kind != token_kind::equals)
                fail(where, "expected a statement, found the name '" + target + "' (assign with '" +
                                target + " = ...', declare with 'let " + target + " = ...')");
            take();
            expr value = whole_value().value;
            end_of_statement("the assignment");
            return simple(where, assign_stmt{std::move(target), std::move(value)});
        }
        if (first.kind != token_kind::keyword) unexpected("a statement");

        const std::string& keyword = first.text;
        if (keyword == "join" || keyword == "join_all" || keyword == "recv" || keyword == "tick" ||
            keyword == "race")
            return expression_statement(where);
        if (keyword == "spawn") {
            // `spawn NAME { ... }` declares NAME; `spawn f(x)` keeps no handle.
            if (call_at(1)) return expression_statement(where);
            take();
            spawn_expr task = spawn_block(where);
            end_of_statement("'}'");
            return compound(where, spawn_stmt{std::move(task)});
        }
        take();
        if (keyword == "let") {
            std::string target = name("'let'");
            expect(token_kind::equals, "after the name in 'let'");
            expr value = whole_value().value;
            end_of_statement("'let'");
            return simple(where, let_stmt{std::move(target), std::move(value)});
        }
        if (keyword == "print") {
            print_stmt print;
            while (!at_line_end())
                print.arguments.push_back(expression().value);
            end_of_statement("'print'");
            return simple(where, std::move(print));
        }
        if (keyword == "assert") {
            assert_stmt a{expression().value, std::nullopt};
            if (!at_line_end()) a.message = expression().value;
            end_of_statement("'assert'");
            return simple(where, std::move(a));
        }
        if (keyword == "fail") {
            if (at_line_end()) unexpected("a message after 'fail'");
            fail_stmt f{expression().value};
            end_of_statement("'fail'");
            return simple(where, std::move(f));
        }
        if (keyword == "sleep" || keyword == "spin") {
            expr duration = expression().value;
            end_of_statement("'" + keyword + "'");
            if (keyword == "sleep") return compound(where, sleep_stmt{std::move(duration)});
            return compound(where, spin_stmt{std::move(duration)});
        }
        if (keyword == "yield") {
            end_of_statement("'yield'");
            return compound(where, yield_stmt{});
        }
        if (keyword == "if") return if_statement(where);
        if (keyword == "while") {
            expr condition = expression().value;
            block body = loop_body("'while'");
            end_of_statement("'}'");
            return compound(where, while_stmt{std::move(condition), std::move(body)});
        }
        if (keyword == "loop") {
            block body = loop_body("'loop'");
            end_of_statement("'}'");
            return compound(where, loop_stmt{std::move(body)});
        }
        if (keyword == "repeat") {
            expr count = expression().value;
            std::optional<std::string> counter;
            if (at_keyword("as")) {
                take();
                counter = name("'as'");
            }
            block body = loop_body("'repeat'");
            end_of_statement("'}'");
            return compound(where,
                            repeat_stmt{std::move(count), std::move(counter), std::move(body)});
        }
        if (keyword == "break" || keyword == "continue") {
            if (loop_depth_ == 0)
                fail(where, "'" + keyword +
                                "' outside a loop (loops are while, loop and repeat; a task's or "
                                "function's body starts outside any loop)");
            end_of_statement("'" + keyword + "'");
            if (keyword == "break") return simple(where, break_stmt{});
            return simple(where, continue_stmt{});
        }
        if (keyword == "return") {
            return_stmt r;
            if (!at_line_end()) r.value = whole_value().value;
            end_of_statement("'return'");
            return simple(where, std::move(r));
        }
        if (keyword == "fn")
            fail(where,
                 "functions are declared at the top level of the script, not inside a block");
        if (keyword == "cancel") {
            cancel_stmt c{expression().value, std::nullopt};
            if (!at_line_end()) c.reason = expression().value;
            end_of_statement("'cancel'");
            return simple(where, std::move(c));
        }
        if (keyword == "region") {
            block body = this->body("'region'");
            end_of_statement("'}'");
            return compound(where, region_stmt{std::move(body)});
        }
        if (keyword == "timeout") {
            expr limit = expression().value;
            timeout_stmt t{std::move(limit), this->body("'timeout'"), std::nullopt};
            if (at_keyword("else")) {
                take();
                t.otherwise = this->body("'else'");
            }
            end_of_statement("'}'");
            return compound(where, std::move(t));
        }
        if (keyword == "acquire") {
            expr semaphore = expression().value;
            block body = this->body("'acquire'");
            end_of_statement("'}'");
            return compound(where, acquire_stmt{std::move(semaphore), std::move(body)});
        }
        if (keyword == "send") {
            sign_like_operator_.reset();
            expr channel = expression().value;
            if (at_line_end())
                missing_second_operand("the value to send after the channel", "send");
            expr value = whole_value().value;
            end_of_statement("'send'");
            return compound(where, send_stmt{std::move(channel), std::move(value)});
        }
        if (keyword == "close") {
            expr target = expression().value;
            end_of_statement("'close'");
            return compound(where, close_stmt{std::move(target)});
        }
        if (keyword == "write") {
            sign_like_operator_.reset();
            expr stream = expression().value;
            if (at_line_end())
                missing_second_operand("the data to write after the stream", "write");
            expr data = expression().value;
            end_of_statement("'write'");
            return compound(where, write_stmt{std::move(stream), std::move(data)});
        }
        if (keyword == "read" || keyword == "accept" || keyword == "connect" || keyword == "listen")
            fail(where,
                 "'" + keyword + "' gives a value: keep it, e.g. 'let x = " + keyword + " ...'");
        fail(where, "expected a statement, found '" + keyword + "'");
    }

    /// A call, or a join, join_all, recv, race or spawn, run for its effect.
    stmt expression_statement(source_pos where) {
        expr value = whole_value().value;
        const bool runs = std::holds_alternative<call_expr>(value.node) ||
                          std::holds_alternative<spawn_expr>(value.node) ||
                          std::holds_alternative<race_expr>(value.node) ||
                          std::holds_alternative<builtin_expr>(value.node);
        if (!runs)
            fail(value.where,
                 "expected a statement: this expression computes a value and drops it (keep it "
                 "with 'let x = ...')");
        end_of_statement("the expression");
        return compound(where, expression_stmt{std::move(value)});
    }

    stmt if_statement(source_pos where) {
        if_stmt s;
        expr condition = expression().value;
        s.branches.push_back({std::move(condition), body("'if'")});
        while (at_keyword("else")) {
            take();
            if (at_keyword("if")) {
                take();
                expr next = expression().value;
                s.branches.push_back({std::move(next), body("'else if'")});
                continue;
            }
            s.otherwise = body("'else'");
            break;
        }
        end_of_statement("'}'");
        return compound(where, std::move(s));
    }

    void function_declaration(program& p) {
        const source_pos where = take().where;
        function_decl f{where, name("'fn'"), {}, {}};
        expect(token_kind::left_paren, "after the function's name");
        while (peek().kind != token_kind::right_paren) {
            if (!f.parameters.empty()) expect(token_kind::comma, "between parameters");
            const source_pos at = peek().where;
            std::string parameter = name(f.parameters.empty() ? "'('" : "','");
            if (std::find(f.parameters.begin(), f.parameters.end(), parameter) !=
                f.parameters.end())
                fail(at, "parameter '" + parameter + "' is declared twice");
            f.parameters.push_back(std::move(parameter));
        }
        take();
        f.body = task_body("'fn " + f.name + "'");
        end_of_statement("'}'");
        if (const auto it = p.functions.find(f.name); it != p.functions.end())
            fail(where, "function '" + f.name + "' is already declared at " +
                            std::to_string(it->second.where.line) + ':' +
                            std::to_string(it->second.where.column));
        std::string key = f.name;
        p.functions.emplace(std::move(key), std::move(f));
    }

    void check_calls(const program& p) const {
        std::vector<std::string_view> names;
        for (const auto& [function, declaration] : p.functions)
            names.push_back(function);
        for (const call_site& call : calls_) {
            const auto it = p.functions.find(call.function);
            if (it == p.functions.end())
                fail(call.where, "unknown function '" + call.function + "'" +
                                     config::did_you_mean(call.function, names) +
                                     (names.empty() ? " (declare it with fn)" : ""));
            const std::size_t wanted = it->second.parameters.size();
            if (wanted != call.arguments)
                fail(call.where, "'" + call.function + "' takes " + std::to_string(wanted) +
                                     (wanted == 1 ? " argument" : " arguments") + ", not " +
                                     std::to_string(call.arguments));
        }
    }

    /// A statement that never suspends its task when its expressions are pure.
    template <class Node>
    stmt simple(source_pos where, Node node) {
        stmt s{where, std::move(node), false};
        s.immediate = all_pure(std::get<Node>(s.node));
        return s;
    }
    template <class Node>
    static stmt compound(source_pos where, Node node) {
        return stmt{where, std::move(node), false};
    }
    static bool pure(const std::optional<expr>& e) { return !e || e->pure; }
    static bool all_pure(const let_stmt& s) { return s.value.pure; }
    static bool all_pure(const assign_stmt& s) { return s.value.pure; }
    static bool all_pure(const print_stmt& s) {
        return std::all_of(s.arguments.begin(), s.arguments.end(),
                           [](const expr& e) { return e.pure; });
    }
    static bool all_pure(const assert_stmt& s) { return s.condition.pure && pure(s.message); }
    static bool all_pure(const fail_stmt& s) { return s.message.pure; }
    static bool all_pure(const cancel_stmt& s) { return s.task.pure && pure(s.reason); }
    static bool all_pure(const return_stmt& s) { return pure(s.value); }
    static bool all_pure(const break_stmt&) { return true; }
    static bool all_pure(const continue_stmt&) { return true; }

    // ---- blocks ----

    /// '{' NEWLINE statements '}'; what follows the '}' is the caller's.
    block body(const std::string& owner) {
        if (peek().kind == token_kind::equals)
            fail(peek().where, "expected '{' to open the block of " + owner +
                                   ", found '=' (to compare, write ==; = only assigns)");
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
            if (at_keyword("fn"))
                fail(peek().where,
                     "functions are declared at the top level of the script, not inside a block");
            b.statements.push_back(statement());
        }
        take();
        --block_depth_;
        return b;
    }

    /// The body of a loop: break and continue may appear in it.
    block loop_body(const std::string& owner) {
        ++loop_depth_;
        block b = body(owner);
        --loop_depth_;
        return b;
    }

    /// The body of a task or function: the loops around it are not its own.
    block task_body(const std::string& owner) {
        const unsigned outer_loops = std::exchange(loop_depth_, 0);
        block b = body(owner);
        loop_depth_ = outer_loops;
        return b;
    }

    // ---- expressions ----

    /// An expression that may also be a spawn or a race (only as a whole,
    /// so that blocks never sit deep inside an expression tree).
    parsed_expr whole_value() {
        const source_pos where = peek().where;
        if (at_keyword("spawn")) {
            take();
            if (call_at()) {
                parsed_expr call = primary();
                return {expr{where,
                             spawn_expr{std::get<call_expr>(call.value.node).function, nullptr,
                                        std::get<call_expr>(std::move(call.value.node))},
                             false},
                        call.depth + 1};
            }
            return {expr{where, spawn_block(where), false}, 1};
        }
        if (at_keyword("race")) {
            take();
            race_expr race;
            race.blocks.push_back(task_body("'race'"));
            if (!at_keyword("or"))
                unexpected("'or' and a second block after the race's first block");
            while (at_keyword("or")) {
                take();
                race.blocks.push_back(task_body("'or'"));
            }
            return {expr{where, std::move(race), false}, 1};
        }
        return expression();
    }

    /// After 'spawn': NAME { ... }.
    spawn_expr spawn_block(source_pos where) {
        if (peek().kind == token_kind::left_brace)
            fail(where,
                 "a spawned task needs a name: 'spawn worker { ... }', or a function: "
                 "'spawn f(x)'");
        std::string task = name("'spawn'");
        return spawn_expr{task, std::make_unique<block>(task_body("'spawn " + task + "'")),
                          std::nullopt};
    }

    parsed_expr expression() {
        return chain([this] { return conjunction(); },
                     [this]() -> std::optional<binary_op> {
                         if (at_keyword("or")) return binary_op::logical_or;
                         return std::nullopt;
                     });
    }

    parsed_expr conjunction() {
        return chain([this] { return negation(); },
                     [this]() -> std::optional<binary_op> {
                         if (at_keyword("and")) return binary_op::logical_and;
                         return std::nullopt;
                     });
    }

    parsed_expr negation() {
        if (!at_keyword("not")) return comparison();
        const source_pos where = take().where;
        return prefix(
            where, [&] { return negation(); },
            [](expr_ptr operand) -> decltype(expr::node) {
                return unary_expr{unary_op::logical_not, std::move(operand)};
            });
    }

    parsed_expr comparison() {
        bool compared = false;
        return chain([this] { return sum(); },
                     [&]() -> std::optional<binary_op> {
                         const std::optional<binary_op> op = comparison_op(peek().kind);
                         if (op && std::exchange(compared, true))
                             fail(peek().where,
                                  "comparisons do not chain: write (a < b) and (b < c)");
                         return op;
                     });
    }

    static std::optional<binary_op> comparison_op(token_kind kind) {
        switch (kind) {
            case token_kind::equal_equal:
                return binary_op::equal;
            case token_kind::not_equal:
                return binary_op::not_equal;
            case token_kind::less:
                return binary_op::less;
            case token_kind::less_equal:
                return binary_op::less_equal;
            case token_kind::greater:
                return binary_op::greater;
            case token_kind::greater_equal:
                return binary_op::greater_equal;
            default:
                return std::nullopt;
        }
    }

    parsed_expr sum() {
        return chain([this] { return term(); },
                     [this]() -> std::optional<binary_op> {
                         if (peek().kind == token_kind::plus) return binary_op::add;
                         if (peek().kind == token_kind::minus) return binary_op::subtract;
                         return std::nullopt;
                     });
    }

    parsed_expr term() {
        return chain([this] { return unary(); },
                     [this]() -> std::optional<binary_op> {
                         if (peek().kind == token_kind::star) return binary_op::multiply;
                         if (peek().kind == token_kind::slash) return binary_op::divide;
                         if (peek().kind == token_kind::percent) return binary_op::remainder;
                         return std::nullopt;
                     });
    }

    /// OPERAND (OP OPERAND)*, the operators those op_at() finds at the next
    /// token, as one binary_expr: it nests one level deeper than its deepest
    /// operand, however many operators it has.
    template <class Operand, class OpAt>
    parsed_expr chain(Operand operand, OpAt op_at) {
        parsed_expr first = operand();
        std::optional<binary_op> op = op_at();
        if (!op) return first;
        // Positioned at the first operator; each step at its own.
        const source_pos where = peek().where;
        unsigned depth = first.depth;
        bool is_pure = first.value.pure;
        binary_expr node{std::make_unique<expr>(std::move(first.value)), {}};
        for (; op; op = op_at()) {
            const source_pos at = take().where;
            if (*op == binary_op::subtract && looks_like_sign(at)) sign_like_operator_ = at;
            parsed_expr next = operand();
            depth = std::max(depth, next.depth);
            is_pure = is_pure && next.value.pure;
            node.rest.push_back({*op, at, std::make_unique<expr>(std::move(next.value))});
        }
        check_depth(where, depth + 1);
        return parsed_expr{expr{where, std::move(node), is_pure}, depth + 1};
    }

    /// True when the '-' at `at`, just taken, has a blank before it and its
    /// operand right after it, as a sign is written: `c -1`.
    bool looks_like_sign(source_pos at) const {
        const token& next = peek();
        if (next.where.line != at.line || next.where.column != at.column + 1 || at.column < 2)
            return false;
        const std::string_view line = at.file ? at.file->line_text(at.line) : std::string_view();
        return at.column - 2 < line.size() &&
               (line[at.column - 2] == ' ' || line[at.column - 2] == '\t');
    }

    /// The second operand of `keyword` (send, write) is missing: says so,
    /// and when the first one holds a sign-like '-', that it subtracted.
    [[noreturn]] void missing_second_operand(std::string_view expected, std::string_view keyword) {
        std::string message = "expected " + std::string(expected) + ", found " + describe(peek());
        if (sign_like_operator_) {
            const source_pos at = *sign_like_operator_;
            std::string_view rest = at.file->line_text(at.line).substr(at.column - 1);
            rest = rest.substr(0, std::min<std::size_t>(rest.find_first_of(" \t#"), 20));
            message += " (the '-' at " + std::to_string(at.line) + ':' + std::to_string(at.column) +
                       " subtracts: an operator joins its neighbours; to " + std::string(keyword) +
                       " " + std::string(rest) + ", write (" + std::string(rest) + "))";
        }
        fail(peek().where, message);
    }

    void check_depth(source_pos where, unsigned depth) const {
        if (depth > max_expression_depth)
            fail(where, "expression is nested too deeply (the limit is " +
                            std::to_string(max_expression_depth) + " levels)");
    }

    /// A prefix operator at `where` over operand(); `make` builds the node.
    template <class Operand, class Make>
    parsed_expr prefix(source_pos where, Operand operand, Make make, bool is_pure = true) {
        // Checked before recursing, so "- - - ... x" cannot exhaust the stack.
        check_depth(where, ++nesting_);
        parsed_expr inner = operand();
        --nesting_;
        const unsigned depth = inner.depth + 1;
        check_depth(where, depth);
        const bool result_pure = is_pure && inner.value.pure;
        return parsed_expr{
            expr{where, make(std::make_unique<expr>(std::move(inner.value))), result_pure}, depth};
    }

    parsed_expr unary() {
        const source_pos where = peek().where;
        if (peek().kind == token_kind::minus) {
            take();
            return prefix(
                where, [&] { return unary(); },
                [](expr_ptr operand) -> decltype(expr::node) {
                    return unary_expr{unary_op::negate, std::move(operand)};
                });
        }
        if (const std::optional<builtin> op = prefix_builtin()) {
            take();
            if (at_line_end()) unexpected("an operand after '" + std::string(spelling(*op)) + "'");
            parsed_expr result = prefix(
                where, [&] { return unary(); },
                [&](expr_ptr operand) -> decltype(expr::node) {
                    builtin_expr b{*op, {}};
                    b.operands.push_back(std::move(*operand));
                    return b;
                },
                false);
            if (*op == builtin::connect && peek().kind == token_kind::keyword &&
                peek().text == "timeout")
                connect_timeout(result);
            return result;
        }
        return postfix();
    }

    /// `connect ADDRESS timeout D`: D becomes the connect's second operand.
    void connect_timeout(parsed_expr& connect) {
        take();
        if (at_line_end()) unexpected("a duration after 'timeout'");
        check_depth(connect.value.where, ++nesting_);
        parsed_expr limit = unary();
        --nesting_;
        connect.depth = std::max(connect.depth, limit.depth + 1);
        check_depth(connect.value.where, connect.depth);
        std::get<builtin_expr>(connect.value.node).operands.push_back(std::move(limit.value));
    }

    std::optional<builtin> prefix_builtin() const {
        if (peek().kind != token_kind::keyword) return std::nullopt;
        const std::string& word = peek().text;
        if (word == "join") return builtin::join;
        if (word == "recv") return builtin::recv;
        if (word == "listen") return builtin::listen;
        if (word == "accept") return builtin::accept;
        if (word == "connect") return builtin::connect;
        if (word == "read") return builtin::read;
        if (word == "tick") return builtin::tick;
        if (word == "subscribe") return builtin::subscribe;
        return std::nullopt;
    }

    parsed_expr postfix() {
        parsed_expr result = primary();
        while (peek().kind == token_kind::dot) {
            const source_pos where = take().where;
            std::string field = name("'.'");
            const unsigned depth = result.depth + 1;
            check_depth(where, depth);
            const bool is_pure = result.value.pure;
            result = parsed_expr{
                expr{where,
                     field_expr{std::make_unique<expr>(std::move(result.value)), std::move(field)},
                     is_pure},
                depth};
        }
        return result;
    }

    /// '(' (expr (',' expr)*)? ')' after a call's name; also counts the depth.
    std::vector<expr> arguments(const std::string& owner, unsigned& depth) {
        const source_pos open = peek().where;
        expect(token_kind::left_paren, "after " + owner);
        check_depth(open, ++nesting_);
        std::vector<expr> args;
        while (peek().kind != token_kind::right_paren) {
            if (!args.empty()) {
                if (peek().kind != token_kind::comma)
                    unexpected("',' or ')' in the arguments of " + owner);
                take();
            }
            parsed_expr arg = expression();
            depth = std::max(depth, arg.depth + 1);
            args.push_back(std::move(arg.value));
        }
        take();
        --nesting_;
        check_depth(open, depth);
        return args;
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
            case token_kind::identifier: {
                const bool is_call = call_at();
                take();
                if (!is_call) return {expr{t.where, variable_ref{t.text}}, 1};
                unsigned depth = 1;
                call_expr call{t.text, arguments("'" + t.text + "'", depth)};
                calls_.push_back({call.function, call.arguments.size(), t.where});
                return {expr{t.where, std::move(call), false}, depth};
            }
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
            case token_kind::keyword:
                return keyword_primary();
            default:
                unexpected("an expression");
        }
    }

    parsed_expr keyword_primary() {
        const token& t = peek();
        const std::string& word = t.text;
        if (word == "true" || word == "false") {
            take();
            return {expr{t.where, bool_literal{word == "true"}}, 1};
        }
        if (word == "none") {
            take();
            return {expr{t.where, none_literal{}}, 1};
        }
        if (word == "now") {
            take();
            return {expr{t.where, now_expr{}, false}, 1};
        }
        if (word == "channel" || word == "semaphore") {
            take();
            unsigned depth = 1;
            std::vector<expr> args = arguments("'" + word + "'", depth);
            if (args.size() != 1)
                fail(t.where, "'" + word + "' takes one argument, its " +
                                  (word == "channel" ? "capacity" : "number of permits") +
                                  ", e.g. " + word + "(4)");
            return {expr{t.where,
                         builtin_expr{word == "channel" ? builtin::channel : builtin::semaphore,
                                      std::move(args)},
                         false},
                    depth};
        }
        if (std::optional<parsed_expr> made = made_by_builtin(t)) return std::move(*made);
        if (word == "signal") {
            take();
            unsigned depth = 1;
            std::vector<expr> args = arguments("'signal'", depth);
            if (args.empty())
                fail(t.where,
                     "'signal' takes the names of the signals to wait for, e.g. "
                     "signal(\"SIGINT\", \"SIGTERM\")");
            return {expr{t.where, builtin_expr{builtin::signal, std::move(args)}, false}, depth};
        }
        if (word == "join_all") {
            take();
            unsigned depth = 1;
            std::vector<expr> args;
            if (peek().kind == token_kind::left_paren) args = arguments("'join_all'", depth);
            return {expr{t.where, builtin_expr{builtin::join_all, std::move(args)}, false}, depth};
        }
        if (word == "spawn" || word == "race")
            fail(t.where, "'" + word +
                              "' gives a value only as a whole expression: write 'let h = " + word +
                              " ...' and use h");
        unexpected("an expression");
    }

    /// interval(PERIOD [, BEHAVIOR]), broadcast(CAPACITY), watch(INITIAL): the
    /// objects of the time and broadcast builtins, at `t` (their keyword).
    std::optional<parsed_expr> made_by_builtin(const token& t) {
        struct shape {
            const char* word;
            builtin op;
            std::size_t most_arguments;
            const char* usage;
        };
        static constexpr shape shapes[] = {
            {"interval", builtin::interval, 2,
             "its period and, if ticks taken late should not come in a burst, \"delay\" or "
             "\"skip\", e.g. interval(100ms) or interval(100ms, \"skip\")"},
            {"broadcast", builtin::broadcast, 1, "its capacity, e.g. broadcast(16)"},
            {"watch", builtin::watch, 1, "its first value, e.g. watch(0)"},
        };
        for (const shape& s : shapes) {
            if (t.text != s.word) continue;
            take();
            unsigned depth = 1;
            std::vector<expr> args = arguments("'" + t.text + "'", depth);
            if (args.empty() || args.size() > s.most_arguments)
                fail(t.where, "'" + t.text + "' takes " + s.usage);
            return parsed_expr{expr{t.where, builtin_expr{s.op, std::move(args)}, false}, depth};
        }
        return std::nullopt;
    }

    const source_file& file_;
    std::vector<token> tokens_;
    std::size_t at_ = 0;
    unsigned block_depth_ = 0;
    unsigned nesting_ = 0;     ///< open parentheses and prefix operators
    unsigned loop_depth_ = 0;  ///< loops around this point in the current task or function
    /// The last '-' written as a sign (a blank before it, none after: `c -1`)
    /// that the parser took for a subtraction.
    std::optional<source_pos> sign_like_operator_;
    std::vector<call_site> calls_;
};

}  // namespace

program parse(std::shared_ptr<const source_file> file) {
    program p;
    parser(*file, tokenize(*file)).parse_into(p);
    p.source = std::move(file);
    return p;
}

program parse(std::string name, std::string text) {
    return parse(
        std::make_shared<const source_file>(source_file{std::move(name), std::move(text)}));
}

}  // namespace rtkit::script
