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

void dump_statement(const stmt& s, int depth, std::string& out) {
    out.append(static_cast<std::size_t>(depth) * 2, ' ');
    std::visit(overloaded{
                   [&](const let_stmt& n) { out += "(let " + n.name + ' ' + dump(n.value) + ')'; },
                   [&](const assign_stmt& n) { out += "(= " + n.name + ' ' + dump(n.value) + ')'; },
                   [&](const print_stmt& n) {
                       out += "(print";
                       for (const auto& a : n.arguments)
                           out += ' ' + dump(a);
                       out += ')';
                   },
                   [&](const sleep_stmt& n) { out += "(sleep " + dump(n.duration) + ')'; },
                   [&](const yield_stmt&) { out += "(yield)"; },
                   [&](const join_stmt& n) { out += "(join " + n.name + ')'; },
                   [&](const spawn_stmt& n) {
                       out += "(spawn " + n.name;
                       dump_block(n.body, depth + 1, out);
                       out += ')';
                   },
                   [&](const repeat_stmt& n) {
                       out += "(repeat " + dump(n.count);
                       dump_block(n.body, depth + 1, out);
                       out += ')';
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
    return std::visit(overloaded{
                          [](const integer_literal& n) { return std::to_string(n.value); },
                          [](const duration_literal& n) { return n.text; },
                          [](const string_literal& n) { return quote(n.value); },
                          [](const variable_ref& n) { return n.name; },
                          [](const unary_expr& n) {
                              return '(' + std::string(spelling(n.op)) + ' ' + dump(*n.operand) +
                                     ')';
                          },
                          [](const binary_expr& n) {
                              return '(' + std::string(spelling(n.op)) + ' ' + dump(*n.left) + ' ' +
                                     dump(*n.right) + ')';
                          },
                      },
                      e.node);
}

std::string dump(const block& b) {
    std::string out;
    dump_block(b, 0, out);
    return out.empty() ? out : out.substr(1) + '\n';
}

}  // namespace rtkit::script
