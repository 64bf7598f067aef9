// Channels and semaphores in the interpreter: rtkit::sync underneath.
#include <doctest/doctest.h>

#include "script_runner.hpp"

TEST_CASE("a channel delivers in order - recv gives none once closed and empty") {
    const auto r = run_script(R"(let c = channel(2)
print c c.capacity c.size c.closed
spawn producer {
    repeat 5 as i {
        send c i * 10
    }
    close c
}
let v = recv c
while v != none {
    print "got" v
    v = recv c
}
print c.closed recv c
)");
    CHECK(r.err == "");
    CHECK(r.out == "channel(2) 2 0 false\ngot 0\ngot 10\ngot 20\ngot 30\ngot 40\ntrue none\n");
}

TEST_CASE("send waits while the channel is full") {
    // The log has "receiving" before "sent 2" only if the second send waited
    // for the first recv.
    const auto r = run_script(R"(let c = channel(1)
let log = channel(10)
let producer = spawn producer {
    send c 1
    send log "sent 1"
    send c 2
    send log "sent 2"
}
print recv log
send log "receiving"
recv c
recv c
join producer
close log
let line = recv log
while line != none {
    print line
    line = recv log
}
)");
    CHECK(r.err == "");
    CHECK(r.out == "sent 1\nreceiving\nsent 2\n");
}

TEST_CASE("any values travel - objects by reference - several receivers take turns") {
    const auto r = run_script(R"(let c = channel(4)
let inner = channel(1)
send c inner
send c none
send c 1.5s
send c "text"
let got = recv c
send got "through the inner channel"
print recv inner recv c recv c recv c
let results = channel(10)
let work = channel(10)
repeat 3 as i {
    spawn consumer {
        let item = recv work
        while item != none {
            send results item * 2
            item = recv work
        }
    }
}
repeat 6 as i {
    send work i
}
close work
join_all
close results
let sum = 0
let x = recv results
while x != none {
    sum = sum + x
    x = recv results
}
print "sum" sum
)");
    CHECK(r.err == "");
    CHECK(r.out == "through the inner channel none 1.5s text\nsum 30\n");
}

TEST_CASE("send on a closed channel and closing twice are errors") {
    CHECK(first_error(run_script("let c = channel(1)\nclose c\nsend c 1\n")) ==
          "3:1: error: send on a closed channel");
    CHECK(first_error(run_script("let c = channel(1)\nclose c\nclose c\n")) ==
          "3:1: error: the channel is already closed");
    CHECK(first_error(run_script("send 1 2\n")) ==
          "1:6: error: send needs a channel, a broadcast or a watch, not an integer");
    CHECK(first_error(run_script("close 1\n")) ==
          "1:7: error: close needs a channel, a broadcast, a watch, a stream or a listener, not an "
          "integer");
}

TEST_CASE("a channel that carries itself is freed when the script ends") {
    // Under AddressSanitizer, a leak here fails the test.
    const auto r =
        run_script("let c = channel(2)\nsend c c\nlet h = spawn t {\n}\nsend c h\n", {}, {});
    CHECK(r.err == "");
}

TEST_CASE("acquire holds a permit for its block - at most N tasks inside at once") {
    const auto r = run_script(R"(let gate = semaphore(2)
let log = channel(100)
repeat 5 {
    spawn worker {
        acquire gate {
            send log 1
            sleep 5ms
            send log (-1)
        }
    }
}
join_all
close log
let inside = 0
let most = 0
let change = recv log
while change != none {
    inside = inside + change
    if inside > most {
        most = inside
    }
    change = recv log
}
print "at most" most "inside" gate gate.available
)");
    CHECK(r.err == "");
    CHECK(r.out == "at most 2 inside semaphore(2) 2\n");
}

TEST_CASE("a permit is given back however the block ends") {
    const auto r = run_script(R"(let m = semaphore(1)
let h = spawn holder {
    acquire m {
        fail "inside"
    }
}
print (join h).status m.available
fn leave(m) {
    acquire m {
        return "returned"
    }
}
print leave(m) m.available
loop {
    acquire m {
        break
    }
}
print m.available
)");
    CHECK(r.err == "");
    CHECK(r.out == "error 1\nreturned 1\n1\n");
}
