// Scripts on the multi_thread flavor: tasks run on several worker threads at
// once, so every object they share and the interpreter's own output, error
// and step counters are used from several threads (ThreadSanitizer checks
// them in its preset). Outputs are compared sorted where the schedule
// decides their order.
#include <doctest/doctest.h>

#include <algorithm>

#include "script_runner.hpp"

namespace {

rtkit::runtime_config multi_thread() {
    rtkit::runtime_config config;
    config.flavor = "multi_thread";
    config.workers = 2;
    return config;
}

}  // namespace

TEST_CASE("on two worker threads - tasks - channels - join_all - semaphores") {
    const auto r = run_script(R"(let results = channel(100)
let gate = semaphore(1)
let shared = channel(1)
send shared 0
repeat 20 as i {
    spawn worker {
        repeat 10 {
            acquire gate {
                let n = recv shared
                send shared n + 1
            }
            yield
        }
        send results i
        print "worker" i "done"
    }
}
join_all
close results
let sum = 0
let v = recv results
while v != none {
    sum = sum + v
    v = recv results
}
print "sum" sum "count" recv shared
)",
                              {}, multi_thread());
    CHECK(r.err == "");
    std::vector<std::string> expected;
    for (int i = 0; i < 20; ++i)
        expected.push_back("worker " + std::to_string(i) + " done");
    expected.push_back("sum 190 count 200");
    std::sort(expected.begin(), expected.end());
    CHECK(sorted_lines(r.out) == expected);
}

TEST_CASE("on two worker threads - failures - cancellation - race - region - TCP") {
    const auto r = run_script(R"(let l = listen "127.0.0.1:0"
spawn server {
    repeat 4 {
        let c = accept l
        spawn echo {
            write c read c
            close c
        }
    }
}
let replies = channel(4)
repeat 4 as i {
    spawn client {
        let s = connect l.address
        write s "ping " + i
        send replies read s
        close s
    }
}
let job = spawn job {
    region {
        spawn sleeper {
            sleep 10s
        }
        spawn failing {
            fail "failing gave up"
        }
    }
}
print "job" (join job).status
let o = race {
    sleep 10s
} or {
    return "quick"
}
print "race" o.value
let h = spawn busy {
    loop {
    }
}
cancel h "stop"
print "busy" (join h).status
join_all
close replies
let line = recv replies
while line != none {
    print line
    line = recv replies
}
)",
                              {}, multi_thread());
    CHECK(r.err == "");
    CHECK(sorted_lines(r.out) == std::vector<std::string>{"busy cancelled", "job error", "ping 0",
                                                          "ping 1", "ping 2", "ping 3",
                                                          "race quick"});
}

TEST_CASE("on two worker threads - an unjoined failure - the step budget - a deadlock") {
    const auto failed = run_script("spawn a {\n    fail \"lost?\"\n}\n", {}, multi_thread());
    CHECK(failed.failed);
    CHECK(failed.err.rfind("i.rts:2:5: error: lost?\n", 0) == 0);

    rtkit::interp::interpreter_options small;
    small.max_steps = 5000;
    const auto spent =
        run_script("repeat 4 {\n    spawn spinner {\n        loop {\n        }\n    }\n}\n", small,
                   multi_thread());
    CHECK(spent.failed);
    CHECK(spent.err.find("used up its budget of 5000 steps") != std::string::npos);
    CHECK(std::count(spent.err.begin(), spent.err.end(), '^') == 2);  // once, with its task

    const auto stuck =
        run_script("let c = channel(1)\nspawn t {\n    recv c\n}\nrecv c\n", {}, multi_thread());
    CHECK(stuck.failed);
    CHECK(stuck.err.rfind("error: deadlock: ", 0) == 0);
}
