// Cancellation in the middle of every statement that waits. A `timeout`
// cancels its block only once the block waits, so each case below is
// interrupted inside its statement; each then checks that nothing was lost
// or left held. `cancel` of a task does the same from another task.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <rtkit/runtime.hpp>
#include <sstream>
#include <thread>

#include "rtkit/interp/script_failed.hpp"
#include "rtkit/script/parser.hpp"
#include "script_runner.hpp"

namespace {

/// `statement` in a timeout of 20ms whose else prints "cancelled"; then `after`.
std::string interrupted(const std::string& setup, const std::string& statement,
                        const std::string& after = "") {
    return setup + "timeout 20ms {\n" + statement +
           "\n    print \"never\"\n} else {\n    print \"cancelled\"\n}\n" + after;
}

}  // namespace

TEST_CASE("cancelled in sleep - yield - a function call - a nested timeout") {
    CHECK(run_script(interrupted("", "sleep 10s")).out == "cancelled\n");
    CHECK(run_script(interrupted("", "loop {\n    yield\n}")).out == "cancelled\n");
    CHECK(run_script(interrupted("fn slow() {\n    sleep 10s\n}\n", "slow()")).out ==
          "cancelled\n");
    // The inner timeout's own else does not run: the outer deadline cancelled it.
    CHECK(run_script(
              interrupted("", "timeout 10s {\n    sleep 10s\n} else {\n    print \"inner\"\n}"))
              .out == "cancelled\n");
    CHECK(run_script("timeout 10s {\n    sleep 1ms\n    print \"in time\"\n} else {\n    print "
                     "\"late\"\n}\n")
              .out == "in time\n");
}

TEST_CASE("a sleep too long for the clock waits until cancelled - never returns at once") {
    CHECK(run_script(interrupted("", "sleep 9223372036s")).out == "cancelled\n");
    CHECK(run_script(interrupted("", "sleep 9223372036854775807ns")).out == "cancelled\n");
    CHECK(run_script(interrupted("", "timeout 9223372036s {\n    sleep 10s\n}")).out ==
          "cancelled\n");
}

TEST_CASE("cancelled in recv - a value sent afterwards is still there") {
    const auto r = run_script(
        interrupted("let c = channel(1)\n", "recv c", "send c 7\nprint recv c c.size\n"));
    CHECK(r.err == "");
    CHECK(r.out == "cancelled\n7 0\n");
}

TEST_CASE("cancelled in send on a full channel - the value was not sent") {
    const auto r = run_script(interrupted("let c = channel(1)\nsend c 1\n", "send c 2",
                                          "print recv c c.size\nsend c 3\nprint recv c\n"));
    CHECK(r.err == "");
    CHECK(r.out == "cancelled\n1 0\n3\n");
}

TEST_CASE("cancelled in acquire - no permit is kept") {
    const auto r = run_script(
        interrupted("let m = semaphore(1)\nlet held = channel(1)\nlet release = channel(1)\n"
                    "let holder = spawn holder {\n    acquire m {\n        send held true\n"
                    "        recv release\n    }\n}\nrecv held\n",
                    "acquire m {\n    print \"inside\"\n}",
                    "send release true\njoin holder\nprint m.available\n"));
    CHECK(r.err == "");
    CHECK(r.out == "cancelled\n1\n");
}

TEST_CASE("cancelled in join and join_all - the joined task goes on") {
    const auto r = run_script(R"(let go = channel(1)
let h = spawn worker {
    recv go
    return "finished"
}
timeout 5ms {
    join h
} else {
    print "join cancelled"
}
timeout 5ms {
    join_all
} else {
    print "join_all cancelled"
}
send go true
print (join h).value
)");
    CHECK(r.err == "");
    CHECK(r.out == "join cancelled\njoin_all cancelled\nfinished\n");
}

TEST_CASE("cancelled in race - and in a region that drains - their tasks are cancelled") {
    const auto r = run_script(R"(let log = channel(10)
timeout 10ms {
    race {
        sleep 10s
        send log "never 1"
    } or {
        sleep 10s
        send log "never 2"
    }
} else {
    print "race cancelled"
}
timeout 10ms {
    region {
        spawn inside {
            sleep 10s
            send log "never 3"
        }
    }
} else {
    print "region cancelled"
}
print log.size
)");
    CHECK(r.err == "");
    CHECK(r.out == "race cancelled\nregion cancelled\n0\n");
}

TEST_CASE("cancelled in accept - read - write - the sockets still work afterwards") {
    const auto r = run_script(R"(let l = listen "127.0.0.1:0"
timeout 10ms {
    let never = accept l
} else {
    print "accept cancelled"
}
let done = channel(1)
spawn client {
    let s = connect l.address
    let got = read s
    write s "reply to " + got
    recv done
    close s
}
let c = accept l
timeout 10ms {
    print read c
} else {
    print "read cancelled"
}
write c "ping"
print read c
let chunk = "x"
repeat 20 {
    chunk = chunk + chunk
}
timeout 100ms {
    loop {
        write c chunk
    }
} else {
    print "write cancelled"
}
close done
close c
)");
    CHECK(r.err == "");
    CHECK(r.out == "accept cancelled\nread cancelled\nreply to ping\nwrite cancelled\n");
}

TEST_CASE("cancelled in connect to a listener whose queue is full") {
    // A listening socket with a backlog of 0 that never accepts: once one
    // connection waits in its queue, Linux drops the next SYNs, so a connect
    // waits (and retries) until it is cancelled.
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listener >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), size) == 0);
    REQUIRE(::listen(listener, 0) == 0);
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) == 0);
    const int queued = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(::connect(queued, reinterpret_cast<sockaddr*>(&address), size) == 0);
    const std::string target = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));

    const auto r = run_script("timeout 100ms {\n    let s = connect \"" + target +
                              "\"\n    print \"connected\"\n} else {\n    print \"connect "
                              "cancelled\"\n}\n");
    CHECK(r.err == "");
    CHECK(r.out == "connect cancelled\n");
    ::close(queued);
    ::close(listener);
}

TEST_CASE("cancel of a task in each waiting statement - from another task") {
    const std::string statements[] = {"sleep 10s", "recv never", "let c = accept l",
                                      "acquire held {\n    }", "join forever"};
    for (const std::string& statement : statements) {
        CAPTURE(statement);
        const auto r = run_script(R"(let ready = channel(1)
let never = channel(1)
let l = listen "127.0.0.1:0"
let held = semaphore(1)
let forever = spawn forever {
    sleep 10s
}
acquire held {
    let victim = spawn victim {
        send ready true
        )" + statement + R"(
        print "never"
    }
    recv ready
    cancel victim "stopped"
    let o = join victim
    print o.status o.message
}
print held.available
cancel forever
)");
        CHECK(r.err == "");
        CHECK(r.out == "cancelled stopped\n1\n");
    }
}

namespace {

/// An ostream whose text another thread may wait for.
class watched_output {
  public:
    std::ostream& stream() { return stream_; }
    /// Blocks until `text` was written (checked every time a line ends).
    void wait_for(const std::string& text) {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return seen_.find(text) != std::string::npos; });
    }

  private:
    class buffer : public std::stringbuf {
      public:
        explicit buffer(watched_output& owner) : owner_(owner) {}
        int sync() override {
            std::lock_guard lock(owner_.mutex_);
            owner_.seen_ = str();
            owner_.ready_.notify_all();
            return 0;
        }

      private:
        watched_output& owner_;
    };
    std::mutex mutex_;
    std::condition_variable ready_;
    std::string seen_;
    buffer buffer_{*this};
    std::ostream stream_{&buffer_};
};

}  // namespace

TEST_CASE("stop() from another thread cancels a task in the middle of spin") {
    const auto program =
        rtkit::script::parse("i.rts", "print \"spinning\"\nspin 30s\nprint \"never\"\n");
    watched_output out;
    std::ostringstream err;
    rtkit::interp::interpreter interpreter(program, out.stream(), err);
    std::thread stopper([&] {
        out.wait_for("spinning\n");
        interpreter.stop("enough spinning");
    });
    const auto start = std::chrono::steady_clock::now();
    bool failed = false;
    {
        rtkit::runtime runtime;
        try {
            runtime.block_on(interpreter.run(runtime));
        } catch (const rtkit::interp::script_failed&) {
            failed = true;
        }
    }
    stopper.join();
    CHECK(failed);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    CHECK(err.str() == "error: the script was stopped: enough spinning\n");
}
