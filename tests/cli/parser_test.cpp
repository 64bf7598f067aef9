#include <doctest/doctest.h>

#include "parse_helpers.hpp"

using namespace rtkit::script;

TEST_CASE("every statement kind parses to its node") {
    CHECK(tree_of(R"(# a comment line
let x = 1
x = x + 1
print "x is" x
print
assert x == 2 "x is two"
assert true
sleep 10ms
spin 1.5ms
yield
spawn worker {
  repeat 3 as i {
    print "tick" i
  }
}
join worker
cancel worker "enough"
cancel worker
region {
  send ch 1
}
timeout 1s {
  recv ch
} else {
  fail "too slow"
}
acquire gate {
  close ch
}
write s "data"
)") == R"((let x 1)
(= x (+ x 1))
(print "x is" x)
(print)
(assert (== x 2) "x is two")
(assert true)
(sleep 10ms)
(spin 1.5ms)
(yield)
(spawn worker
  (repeat 3 as i
    (print "tick" i)))
(join worker)
(cancel worker "enough")
(cancel worker)
(region
  (send ch 1))
(timeout 1s
  (recv ch)
  (else
    (fail "too slow")))
(acquire gate
  (close ch))
(write s "data")
)");
}

TEST_CASE("control flow - if else if else - while - loop with break and continue") {
    CHECK(tree_of(R"(if a < 1 {
  print 1
} else if a < 2 {
  print 2
} else {
  print 3
}
while n > 0 {
  n = n - 1
  continue
}
loop {
  break
}
)") == R"((if
  (when (< a 1)
    (print 1))
  (when (< a 2)
    (print 2))
  (else
    (print 3)))
(while (> n 0)
  (= n (- n 1))
  (continue))
(loop
  (break))
)");
}

TEST_CASE("functions - calls - return and spawn of a function") {
    const program p = parse("t.rts", R"(let y = double(2)
fn double(n) {
  return n * 2
}
fn nothing() {
  return
}
spawn double(y)
nothing()
let h = spawn double(3)
)");
    CHECK(dump(p) == R"((fn double (n)
  (return (* n 2)))
(fn nothing ()
  (return))
(let y (call double 2))
(spawn double y)
(call nothing)
(let h (spawn double 3))
)");
    CHECK(p.functions.at("double").parameters == std::vector<std::string>{"n"});
}

TEST_CASE("values that wait - race - join_all - builtins") {
    CHECK(tree_of(R"(let o = race {
  sleep 1s
} or {
  return 2
} or {
  yield
}
let all = join_all
let some = join_all(a, b)
join_all
let c = channel(4)
let g = semaphore(2)
let l = listen "127.0.0.1:0"
let s = accept l
let t = connect l.address
let u = connect "localhost:80" timeout 2s
let stop = signal("SIGINT", "SIGTERM")
let d = read s
let v = recv c
let w = join h
)") == R"((let o (race
  (or
    (sleep 1s))
  (or
    (return 2))
  (or
    (yield))))
(let all (join_all))
(let some (join_all a b))
(join_all)
(let c (channel 4))
(let g (semaphore 2))
(let l (listen "127.0.0.1:0"))
(let s (accept l))
(let t (connect (. l address)))
(let u (connect "localhost:80" 2s))
(let stop (signal "SIGINT" "SIGTERM"))
(let d (read s))
(let v (recv c))
(let w (join h))
)");
}

TEST_CASE("operators - precedence from or down to unary and fields") {
    CHECK(tree_of("let a = 1 + 2 * 3\n") == "(let a (+ 1 (* 2 3)))\n");
    CHECK(tree_of("let a = (1 + 2) * 3\n") == "(let a (* (+ 1 2) 3))\n");
    CHECK(tree_of("let a = 10 - 4 - 3\n") == "(let a (- (- 10 4) 3))\n");
    CHECK(tree_of("let a = 7 / 2 % 3 * 4\n") == "(let a (* (% (/ 7 2) 3) 4))\n");
    CHECK(tree_of("let a = -x * -(2 + 1)\n") == "(let a (* (- x) (- (+ 2 1))))\n");
    CHECK(tree_of("sleep 10ms * n\n") == "(sleep (* 10ms n))\n");
    CHECK(tree_of("let a = x + 1 < y * 2 and not b or c == none\n") ==
          "(let a (or (and (< (+ x 1) (* y 2)) (not b)) (== c none)))\n");
    CHECK(tree_of("let a = x != 1 or y >= 2 and z <= 3 and w > false\n") ==
          "(let a (or (!= x 1) (and (and (>= y 2) (<= z 3)) (> w false))))\n");
    CHECK(tree_of("let a = (join h).value.x + now\n") ==
          "(let a (+ (. (. (join h) value) x) now))\n");
    CHECK(tree_of("let a = recv c + 1\n") == "(let a (+ (recv c) 1))\n");
    CHECK(tree_of("let a = not not true\n") == "(let a (not (not true)))\n");
}

TEST_CASE("print takes any number of expressions - an operator joins its neighbours") {
    CHECK(tree_of("print \"a\" 1 + 2 \"b\" (-3)\n") == "(print \"a\" (+ 1 2) \"b\" (- 3))\n");
    CHECK(tree_of("print \"tab\\there\"\n") == "(print \"tab\\there\")\n");
    // A call has its '(' right after the name; with a space, two values.
    CHECK(tree_of("fn f(x) {\n}\nprint f (1) f(2)\n") == "(print f 1 (call f 2))\n");
    CHECK(tree_of("send c (-1)\n") == "(send c (- 1))\n");
}

TEST_CASE("nodes keep their source positions") {
    const program p = parse("t.rts", "\nspawn a {\n    print 1 / 0\n}\n");
    REQUIRE(p.body.statements.size() == 1);
    const stmt& spawn = p.body.statements[0];
    CHECK(spawn.where.line == 2);
    CHECK(spawn.where.column == 1);
    CHECK(spawn.where.file == p.source.get());
    const block& body = *std::get<spawn_stmt>(spawn.node).task.body;
    CHECK(body.where.column == 9);
    const stmt& print = body.statements.at(0);
    CHECK(print.where.line == 3);
    CHECK(print.where.column == 5);
    const expr& division = std::get<print_stmt>(print.node).arguments.at(0);
    CHECK(division.where.column == 13);  // the operator
}

TEST_CASE("statements that cannot suspend are marked immediate - pure expressions too") {
    const program p = parse("t.rts", R"(let a = 1 + x
let b = f(1)
print now
sleep 1ms
break_out()
fn f(x) {
  return x
}
fn break_out() {
  loop {
    break
  }
}
)");
    const auto& s = p.body.statements;
    CHECK(s[0].immediate);
    CHECK(std::get<let_stmt>(s[0].node).value.pure);
    CHECK_FALSE(s[1].immediate);
    CHECK_FALSE(std::get<let_stmt>(s[1].node).value.pure);
    CHECK_FALSE(s[2].immediate);  // now needs the runtime's clock
    CHECK_FALSE(s[3].immediate);
    CHECK_FALSE(s[4].immediate);
}

TEST_CASE("blank lines - comments - tabs and CRLF line ends are fine - empty input is empty") {
    CHECK(tree_of("").empty());
    CHECK(tree_of("\n\n# only a comment\n").empty());
    CHECK(tree_of("\tlet x = 1\r\n\r\nyield # trailing\r\n") == "(let x 1)\n(yield)\n");
    CHECK(tree_of("yield") == "(yield)\n");  // no newline at the end
}
