#pragma once
// The syntax tree of a script. Every node keeps its source position. A new
// statement or expression kind is a new struct and a new variant alternative;
// std::visit then makes every consumer (interpreter, dump) handle it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "rtkit/script/source.hpp"

namespace rtkit::script {

// ---- expressions ----

struct expr;
using expr_ptr = std::unique_ptr<expr>;

enum class unary_op { negate };
enum class binary_op { add, subtract, multiply, divide, remainder };

/// "+", "-", ... as written in scripts.
std::string_view spelling(unary_op op) noexcept;
std::string_view spelling(binary_op op) noexcept;

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
struct unary_expr {
    unary_op op;
    expr_ptr operand;
};
struct binary_expr {
    binary_op op;
    expr_ptr left;
    expr_ptr right;
};

struct expr {
    source_pos where;
    std::variant<integer_literal, duration_literal, string_literal, variable_ref, unary_expr,
                 binary_expr>
        node;
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
/// sleep EXPR (a duration)
struct sleep_stmt {
    expr duration;
};
/// yield
struct yield_stmt {};
/// spawn NAME { ... }
struct spawn_stmt {
    std::string name;
    block body;
};
/// join NAME
struct join_stmt {
    std::string name;
};
/// repeat EXPR { ... }
struct repeat_stmt {
    expr count;
    block body;
};

struct stmt {
    source_pos where;
    std::variant<let_stmt, assign_stmt, print_stmt, sleep_stmt, yield_stmt, spawn_stmt, join_stmt,
                 repeat_stmt>
        node;
};

/// A parsed script. Owns its source, which every node's position points into.
struct program {
    std::shared_ptr<const source_file> source;
    block body;
};

}  // namespace rtkit::script
