#include "script_outline.hpp"

#include <algorithm>

#include "rtkit/script/overloaded.hpp"

namespace rtctl {
namespace {

using namespace rtkit::script;

/// Writes the outline into `out`, one node at a time.
class outliner {
  public:
    explicit outliner(std::string& out) : out_(out) {}

    void node(const source_pos& where, int depth, const std::string& label) {
        std::string position = std::to_string(where.line) + ":" + std::to_string(where.column);
        position.resize(std::max<std::size_t>(position.size() + 2, 8), ' ');
        out_ += position + std::string(static_cast<std::size_t>(depth) * 2, ' ') + label + '\n';
    }

    /// A block's own line at `where` (its statement's start, or its brace),
    /// then what it holds.
    void block_node(const block& b, const source_pos& where, int depth, const std::string& label) {
        const std::size_t count = b.statements.size();
        node(where, depth,
             label + ", " + std::to_string(count) + (count == 1 ? " statement" : " statements"));
        for (const stmt& s : b.statements)
            statement(s, depth + 1);
    }

    void statement(const stmt& s, int depth) {
        std::visit(overloaded{
                       [&](const let_stmt& n) { expression(n.value, depth); },
                       [&](const assign_stmt& n) { expression(n.value, depth); },
                       [&](const print_stmt& n) { expressions(n.arguments, depth); },
                       [&](const assert_stmt& n) {
                           expression(n.condition, depth);
                           if (n.message) expression(*n.message, depth);
                       },
                       [&](const fail_stmt& n) { expression(n.message, depth); },
                       [&](const sleep_stmt& n) { expression(n.duration, depth); },
                       [&](const spin_stmt& n) { expression(n.duration, depth); },
                       [&](const if_stmt& n) {
                           for (std::size_t i = 0; i < n.branches.size(); ++i) {
                               expression(n.branches[i].condition, depth);
                               block_node(n.branches[i].body,
                                          i == 0 ? s.where : n.branches[i].body.where, depth,
                                          i == 0 ? "if" : "else if");
                           }
                           if (n.otherwise)
                               block_node(*n.otherwise, n.otherwise->where, depth, "else");
                       },
                       [&](const while_stmt& n) {
                           expression(n.condition, depth);
                           block_node(n.body, s.where, depth, "while");
                       },
                       [&](const loop_stmt& n) { block_node(n.body, s.where, depth, "loop"); },
                       [&](const repeat_stmt& n) {
                           expression(n.count, depth);
                           block_node(n.body, s.where, depth,
                                      n.counter ? "repeat as " + *n.counter : "repeat");
                       },
                       [&](const return_stmt& n) {
                           if (n.value) expression(*n.value, depth);
                       },
                       [&](const spawn_stmt& n) { spawn(n.task, s.where, depth); },
                       [&](const expression_stmt& n) { expression(n.value, depth); },
                       [&](const cancel_stmt& n) {
                           expression(n.task, depth);
                           if (n.reason) expression(*n.reason, depth);
                       },
                       [&](const region_stmt& n) { block_node(n.body, s.where, depth, "region"); },
                       [&](const timeout_stmt& n) {
                           expression(n.limit, depth);
                           block_node(n.body, s.where, depth, "timeout");
                           if (n.otherwise)
                               block_node(*n.otherwise, n.otherwise->where, depth, "else");
                       },
                       [&](const acquire_stmt& n) {
                           expression(n.semaphore, depth);
                           block_node(n.body, s.where, depth, "acquire");
                       },
                       [&](const send_stmt& n) {
                           expression(n.channel, depth);
                           expression(n.value, depth);
                       },
                       [&](const close_stmt& n) { expression(n.target, depth); },
                       [&](const write_stmt& n) {
                           expression(n.stream, depth);
                           expression(n.data, depth);
                       },
                       [](const auto&) {},  // yield, break, continue: nothing inside
                   },
                   s.node);
    }

    /// Tasks started inside an expression (`let h = spawn ...`, `race`).
    void expression(const expr& e, int depth) {
        std::visit(overloaded{
                       [&](const unary_expr& n) { expression(*n.operand, depth); },
                       [&](const binary_expr& n) {
                           expression(*n.first, depth);
                           for (const binary_expr::step& step : n.rest)
                               expression(*step.operand, depth);
                       },
                       [&](const field_expr& n) { expression(*n.object, depth); },
                       [&](const call_expr& n) { expressions(n.arguments, depth); },
                       [&](const builtin_expr& n) { expressions(n.operands, depth); },
                       [&](const spawn_expr& n) { spawn(n, e.where, depth); },
                       [&](const race_expr& n) {
                           node(e.where, depth,
                                "race: " + std::to_string(n.blocks.size()) + " tasks");
                           for (const block& b : n.blocks)
                               block_node(b, b.where, depth + 1, "task");
                       },
                       [](const auto&) {},  // literals, variables, now
                   },
                   e.node);
    }

    void expressions(const std::vector<expr>& list, int depth) {
        for (const expr& e : list)
            expression(e, depth);
    }

    void spawn(const spawn_expr& task, const source_pos& where, int depth) {
        if (task.body) {
            block_node(*task.body, where, depth, "spawn " + task.name + ": task");
            return;
        }
        node(where, depth, "spawn " + task.name + ": task running fn " + task.call->function);
        expressions(task.call->arguments, depth + 1);
    }

  private:
    std::string& out_;
};

}  // namespace

std::string script_outline(const program& program) {
    std::string out;
    outliner outline(out);
    for (const auto& [name, function] : program.functions)
        outline.block_node(function.body, function.where, 0, "fn " + name + ": function");
    outline.block_node(program.body, program.body.where, 0, "top level: task");
    return out;
}

}  // namespace rtctl
