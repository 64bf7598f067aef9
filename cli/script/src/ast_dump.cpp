#include "rtkit/script/ast_dump.hpp"

#include "rtkit/script/overloaded.hpp"

namespace rtkit::script {
namespace {

std::string quote(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '\t') {
            out += "\\t";
            continue;
        }
        out += c;
    }
    return out + '"';
}

void dump_block(const block& b, int depth, std::string& out);
void dump_expr(const expr& e, int depth, std::string& out);

/// " EXPR" for each expression.
void dump_operands(const std::vector<const expr*>& operands, int depth, std::string& out) {
    for (const expr* e : operands) {
        out += ' ';
        dump_expr(*e, depth, out);
    }
}

/// A clause on a line of its own ("(else" ... ")"), its block below it.
void dump_clause(std::string_view head, const block& body, int depth, std::string& out) {
    out += '\n';
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    out += '(';
    out += head;
    dump_block(body, depth + 1, out);
    out += ')';
}

void dump_expr(const expr& e, int depth, std::string& out) {
    std::visit(overloaded{
                   [&](const none_literal&) { out += "none"; },
                   [&](const bool_literal& n) { out += n.value ? "true" : "false"; },
                   [&](const integer_literal& n) { out += std::to_string(n.value); },
                   [&](const duration_literal& n) { out += n.text; },
                   [&](const string_literal& n) { out += quote(n.value); },
                   [&](const variable_ref& n) { out += n.name; },
                   [&](const now_expr&) { out += "now"; },
                   [&](const unary_expr& n) {
                       out += '(' + std::string(spelling(n.op));
                       dump_operands({n.operand.get()}, depth, out);
                       out += ')';
                   },
                   [&](const binary_expr& n) {
                       // As nested pairs, the way the chain is computed:
                       // a + b - c is (- (+ a b) c).
                       for (auto s = n.rest.rbegin(); s != n.rest.rend(); ++s)
                           out += '(' + std::string(spelling(s->op)) + ' ';
                       dump_expr(*n.first, depth, out);
                       for (const binary_expr::step& s : n.rest) {
                           dump_operands({s.operand.get()}, depth, out);
                           out += ')';
                       }
                   },
                   [&](const field_expr& n) {
                       out += "(. ";
                       dump_expr(*n.object, depth, out);
                       out += ' ' + n.name + ')';
                   },
                   [&](const call_expr& n) {
                       out += "(call " + n.function;
                       for (const expr& a : n.arguments)
                           dump_operands({&a}, depth, out);
                       out += ')';
                   },
                   [&](const builtin_expr& n) {
                       out += '(' + std::string(spelling(n.op));
                       for (const expr& a : n.operands)
                           dump_operands({&a}, depth, out);
                       out += ')';
                   },
                   [&](const spawn_expr& n) {
                       out += "(spawn " + n.name;
                       if (n.call) {
                           for (const expr& a : n.call->arguments)
                               dump_operands({&a}, depth, out);
                       } else {
                           dump_block(*n.body, depth + 1, out);
                       }
                       out += ')';
                   },
                   [&](const race_expr& n) {
                       out += "(race";
                       for (const block& b : n.blocks)
                           dump_clause("or", b, depth + 1, out);
                       out += ')';
                   },
               },
               e.node);
}

void dump_statement(const stmt& s, int depth, std::string& out) {
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    // "(HEAD OPERAND...", left open for a block or more operands.
    auto open = [&](std::string_view head, std::vector<const expr*> list) {
        out += '(';
        out += head;
        dump_operands(list, depth, out);
    };
    auto whole = [&](std::string_view head, std::vector<const expr*> list) {
        open(head, std::move(list));
        out += ')';
    };
    auto optional = [](const std::optional<expr>& e) -> std::vector<const expr*> {
        if (e) return {&*e};
        return {};
    };
    std::visit(overloaded{
                   [&](const let_stmt& n) { whole("let " + n.name, {&n.value}); },
                   [&](const assign_stmt& n) { whole("= " + n.name, {&n.value}); },
                   [&](const print_stmt& n) {
                       std::vector<const expr*> list;
                       for (const expr& a : n.arguments)
                           list.push_back(&a);
                       whole("print", list);
                   },
                   [&](const assert_stmt& n) {
                       open("assert", {&n.condition});
                       dump_operands(optional(n.message), depth, out);
                       out += ')';
                   },
                   [&](const fail_stmt& n) { whole("fail", {&n.message}); },
                   [&](const sleep_stmt& n) { whole("sleep", {&n.duration}); },
                   [&](const spin_stmt& n) { whole("spin", {&n.duration}); },
                   [&](const yield_stmt&) { out += "(yield)"; },
                   [&](const if_stmt& n) {
                       out += "(if";
                       for (const auto& branch : n.branches) {
                           std::string head = "when ";
                           dump_expr(branch.condition, depth + 1, head);
                           dump_clause(head, branch.body, depth + 1, out);
                       }
                       if (n.otherwise) dump_clause("else", *n.otherwise, depth + 1, out);
                       out += ')';
                   },
                   [&](const while_stmt& n) {
                       open("while", {&n.condition});
                       dump_block(n.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const loop_stmt& n) {
                       out += "(loop";
                       dump_block(n.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const repeat_stmt& n) {
                       open("repeat", {&n.count});
                       if (n.counter) out += " as " + *n.counter;
                       dump_block(n.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const break_stmt&) { out += "(break)"; },
                   [&](const continue_stmt&) { out += "(continue)"; },
                   [&](const return_stmt& n) { whole("return", optional(n.value)); },
                   [&](const spawn_stmt& n) {
                       out += "(spawn " + n.task.name;
                       dump_block(*n.task.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const expression_stmt& n) { dump_expr(n.value, depth, out); },
                   [&](const cancel_stmt& n) {
                       open("cancel", {&n.task});
                       dump_operands(optional(n.reason), depth, out);
                       out += ')';
                   },
                   [&](const region_stmt& n) {
                       out += "(region";
                       dump_block(n.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const timeout_stmt& n) {
                       open("timeout", {&n.limit});
                       dump_block(n.body, depth + 1, out);
                       if (n.otherwise) dump_clause("else", *n.otherwise, depth + 1, out);
                       out += ')';
                   },
                   [&](const acquire_stmt& n) {
                       open("acquire", {&n.semaphore});
                       dump_block(n.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const send_stmt& n) {
                       whole("send", {&n.channel, &n.value});
                   },
                   [&](const close_stmt& n) { whole("close", {&n.target}); },
                   [&](const write_stmt& n) {
                       whole("write", {&n.stream, &n.data});
                   },
               },
               s.node);
}

void dump_block(const block& b, int depth, std::string& out) {
    for (const auto& s : b.statements) {
        out += '\n';
        dump_statement(s, depth, out);
    }
}

}  // namespace

std::string dump(const expr& e) {
    std::string out;
    dump_expr(e, 0, out);
    return out;
}

std::string dump(const block& b) {
    std::string out;
    dump_block(b, 0, out);
    return out.empty() ? out : out.substr(1) + '\n';
}

std::string dump(const program& p) {
    std::string out;
    for (const auto& [name, f] : p.functions) {
        out += "\n(fn " + name + " (";
        for (std::size_t i = 0; i < f.parameters.size(); ++i)
            out += (i ? " " : "") + f.parameters[i];
        out += ')';
        dump_block(f.body, 1, out);
        out += ')';
    }
    dump_block(p.body, 0, out);
    return out.empty() ? out : out.substr(1) + '\n';
}

}  // namespace rtkit::script
