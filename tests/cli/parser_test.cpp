#include <doctest/doctest.h>

#include "parse_helpers.hpp"

using namespace rtkit::script;

TEST_CASE("every statement kind parses to its node") {
    CHECK(tree_of(R"(# a comment line
let x = 1
x = x + 1
print "x is" x
print
sleep 10ms
yield
spawn worker {
  repeat 3 {
    print "tick"
  }
}
join worker
)") == R"((let x 1)
(= x (+ x 1))
(print "x is" x)
(print)
(sleep 10ms)
(yield)
(spawn worker
  (repeat 3
    (print "tick")))
(join worker)
)");
}

TEST_CASE("arithmetic has the usual precedence and left associativity") {
    CHECK(tree_of("let a = 1 + 2 * 3\n") == "(let a (+ 1 (* 2 3)))\n");
    CHECK(tree_of("let a = (1 + 2) * 3\n") == "(let a (* (+ 1 2) 3))\n");
    CHECK(tree_of("let a = 10 - 4 - 3\n") == "(let a (- (- 10 4) 3))\n");
    CHECK(tree_of("let a = 7 / 2 % 3 * 4\n") == "(let a (* (% (/ 7 2) 3) 4))\n");
    CHECK(tree_of("let a = -x * -(2 + 1)\n") == "(let a (* (- x) (- (+ 2 1))))\n");
    CHECK(tree_of("sleep 10ms * n\n") == "(sleep (* 10ms n))\n");
}

TEST_CASE("print takes any number of expressions - an operator joins its neighbours") {
    CHECK(tree_of("print \"a\" 1 + 2 \"b\" (-3)\n") == "(print \"a\" (+ 1 2) \"b\" (- 3))\n");
    CHECK(tree_of("print \"tab\\there\"\n") == "(print \"tab\\there\")\n");
}

TEST_CASE("nodes keep their source positions") {
    const program p = parse("t.rts", "\nspawn a {\n    print 1 / 0\n}\n");
    REQUIRE(p.body.statements.size() == 1);
    const stmt& spawn = p.body.statements[0];
    CHECK(spawn.where.line == 2);
    CHECK(spawn.where.column == 1);
    CHECK(spawn.where.file == p.source.get());
    const auto& body = std::get<spawn_stmt>(spawn.node).body;
    CHECK(body.where.column == 9);
    const stmt& print = body.statements.at(0);
    CHECK(print.where.line == 3);
    CHECK(print.where.column == 5);
    const expr& division = std::get<print_stmt>(print.node).arguments.at(0);
    CHECK(division.where.column == 13);  // the operator
}

TEST_CASE("blank lines - comments - tabs and CRLF line ends are fine - empty input is empty") {
    CHECK(tree_of("").empty());
    CHECK(tree_of("\n\n# only a comment\n").empty());
    CHECK(tree_of("\tlet x = 1\r\n\r\nyield # trailing\r\n") == "(let x 1)\n(yield)\n");
    CHECK(tree_of("yield") == "(yield)\n");  // no newline at the end
}
