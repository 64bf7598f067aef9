#pragma once
// The syntax tree of a script. Every node keeps its source position. A new
// statement or expression kind is a new struct and a new variant alternative;
// std::visit then makes every consumer (interpreter, dump) handle it.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "rtkit/script/source.hpp"

namespace rtkit::script {

struct block;
using block_ptr = std::unique_ptr<block>;

// ---- expressions ----

struct expr;
using expr_ptr = std::unique_ptr<expr>;

enum class unary_op { negate, logical_not };
enum class binary_op {
    add,
    subtract,
    multiply,
    divide,
    remainder,
    equal,
    not_equal,
    less,
    less_equal,
    greater,
    greater_equal,
    logical_and,  ///< short-circuits: evaluated by the evaluators, not apply()
    logical_or,
};

/// "+", "-", "not", "and", ... as written in scripts.
std::string_view spelling(unary_op op) noexcept;
std::string_view spelling(binary_op op) noexcept;

struct none_literal {};
struct bool_literal {
    bool value;
};
struct integer_literal {
    std::int64_t value;
};
struct duration_literal {
    std::chrono::nanoseconds value;
    std::string text;  ///< as written, e.g. "10ms"
};
struct string_literal {
    std::string value;
};
struct variable_ref {
    std::string name;
};
/// `now`: the time since the script started, on the runtime's clock.
struct now_expr {};
struct unary_expr {
    unary_op op;
    expr_ptr operand;
};
/// FIRST OP OPERAND OP OPERAND ...: operators of one precedence level,
/// applied left to right (`a + b - c` is `(a + b) - c`). One node holds the
/// whole chain, so a long flat sum nests no deeper than its operands, and
/// whatever walks the tree walks a chain in a loop.
struct binary_expr {
    struct step {
        binary_op op;
        source_pos where;  ///< the operator's: where "division by zero" points
        expr_ptr operand;
    };
    expr_ptr first;
    std::vector<step> rest;  ///< at least one
};
/// EXPR.NAME
struct field_expr {
    expr_ptr object;
    std::string name;
};
/// NAME(ARGS): a function the script declares with `fn`.
struct call_expr {
    std::string function;
    std::vector<expr> arguments;
};

/// The operations built into the language that need the runtime.
enum class builtin {
    join,       ///< join TASK: waits for it, gives its outcome
    join_all,   ///< join_all / join_all(T, ...): waits for several, gives the worst outcome
    recv,       ///< recv CHANNEL: the next value, none once closed and empty
    channel,    ///< channel(CAPACITY)
    semaphore,  ///< semaphore(PERMITS)
    listen,     ///< listen ADDRESS: a TCP listener on loopback
    accept,     ///< accept LISTENER: the next connection
    connect,    ///< connect ADDRESS [timeout D]: a TCP stream to loopback
    read,       ///< read STREAM: the bytes that came, "" at the end of the stream
    interval,   ///< interval(PERIOD) or interval(PERIOD, "burst" | "delay" | "skip")
    tick,       ///< tick INTERVAL: waits for its next tick, gives when it was due
    broadcast,  ///< broadcast(CAPACITY)
    watch,      ///< watch(INITIAL)
    subscribe,  ///< subscribe BROADCAST | WATCH: a receiver of its own
    signal,     ///< signal(NAME, ...): a stream of the named signals' arrivals
};

/// "join", "recv", ... as written.
std::string_view spelling(builtin op) noexcept;

struct builtin_expr {
    builtin op;
    std::vector<expr> operands;
};

/// spawn NAME { ... } (a block run with copies of the variables) or
/// spawn f(ARGS) (a function); gives the task's handle.
struct spawn_expr {
    std::string name;  ///< the task's name: the given name or the function's
    block_ptr body;    ///< the block, or null for a function
    std::optional<call_expr> call;
};

/// race { ... } or { ... }: each block a task; gives the first outcome.
struct race_expr {
    std::vector<block> blocks;
};

struct expr {
    source_pos where;
    std::variant<none_literal, bool_literal, integer_literal, duration_literal, string_literal,
                 variable_ref, now_expr, unary_expr, binary_expr, field_expr, call_expr,
                 builtin_expr, spawn_expr, race_expr>
        node;
    /// Computable without the runtime (no call, builtin, spawn, race or
    /// `now` anywhere inside), so evaluate() can compute it.
    bool pure = true;
};

// ---- statements ----

struct stmt;

/// `{` ... `}`: a scope for `let`.
struct block {
    source_pos where;  ///< the opening brace (or the file's start for the top level)
    std::vector<stmt> statements;
};

/// let NAME = EXPR
struct let_stmt {
    std::string name;
    expr value;
};
/// NAME = EXPR
struct assign_stmt {
    std::string name;
    expr value;
};
/// print EXPR...: the values separated by single spaces, then a newline.
struct print_stmt {
    std::vector<expr> arguments;
};
/// assert COND [MESSAGE]
struct assert_stmt {
    expr condition;
    std::optional<expr> message;
};
/// fail MESSAGE: ends the task with an error outcome.
struct fail_stmt {
    expr message;
};
/// sleep EXPR (a duration)
struct sleep_stmt {
    expr duration;
};
/// spin EXPR (a duration): busy work that holds the worker.
struct spin_stmt {
    expr duration;
};
/// yield
struct yield_stmt {};
/// if COND { } [else if COND { }]... [else { }]
struct if_stmt {
    struct branch {
        expr condition;
        block body;
    };
    std::vector<branch> branches;
    std::optional<block> otherwise;
};
/// while COND { }
struct while_stmt {
    expr condition;
    block body;
};
/// loop { }
struct loop_stmt {
    block body;
};
/// repeat EXPR [as NAME] { }
struct repeat_stmt {
    expr count;
    std::optional<std::string> counter;  ///< 0, 1, ... in each round
    block body;
};
struct break_stmt {};
struct continue_stmt {};
/// return [EXPR]: from a function, or ends a task's body with that value.
struct return_stmt {
    std::optional<expr> value;
};
/// spawn NAME { ... }: starts the task and declares NAME holding its handle.
struct spawn_stmt {
    spawn_expr task;
};
/// An expression run for what it does: a call, or a builtin or race that
/// waits. A join, join_all or race whose outcome is a failure fails the
/// statement (the script did not look at it).
struct expression_stmt {
    expr value;
};
/// cancel TASK [REASON]
struct cancel_stmt {
    expr task;
    std::optional<expr> reason;
};
/// region { }: a scope whose tasks all end before it does.
struct region_stmt {
    block body;
};
/// timeout D { } [else { }]
struct timeout_stmt {
    expr limit;
    block body;
    std::optional<block> otherwise;
};
/// acquire SEMAPHORE { }: runs the block holding one permit.
struct acquire_stmt {
    expr semaphore;
    block body;
};
/// send CHANNEL VALUE
struct send_stmt {
    expr channel;
    expr value;
};
/// close CHANNEL | LISTENER | STREAM
struct close_stmt {
    expr target;
};
/// write STREAM DATA
struct write_stmt {
    expr stream;
    expr data;
};

struct stmt {
    source_pos where;
    std::variant<let_stmt, assign_stmt, print_stmt, assert_stmt, fail_stmt, sleep_stmt, spin_stmt,
                 yield_stmt, if_stmt, while_stmt, loop_stmt, repeat_stmt, break_stmt, continue_stmt,
                 return_stmt, spawn_stmt, expression_stmt, cancel_stmt, region_stmt, timeout_stmt,
                 acquire_stmt, send_stmt, close_stmt, write_stmt>
        node;
    /// Runs to its end without suspending its task and holds no block: a
    /// let, assignment, print, assert, fail, cancel, break, continue or return
    /// whose expressions are pure. The interpreter runs those without a
    /// coroutine frame.
    bool immediate = false;
};

/// fn NAME(PARAMS) { ... }, declared at the top level.
struct function_decl {
    source_pos where;
    std::string name;
    std::vector<std::string> parameters;
    block body;
};

/// A parsed script. Owns its source, which every node's position points into.
struct program {
    std::shared_ptr<const source_file> source;
    block body;  ///< the top level, without its function declarations
    /// Every function, by name; the parser checked that each call names one
    /// with as many parameters as it passes arguments.
    std::map<std::string, function_decl, std::less<>> functions;
};

}  // namespace rtkit::script
