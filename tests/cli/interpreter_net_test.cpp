// TCP in the interpreter: real sockets on loopback through rtkit::net, on
// the epoll and the io_uring reactor.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "script_runner.hpp"

namespace {

/// The default configuration with `reactor` as the reactor.
const char* const echo_script = R"(let l = listen "127.0.0.1:0"
assert l.port > 0
spawn server {
    repeat 3 {
        let c = accept l
        spawn handler {
            let data = read c
            while data != "" {
                write c data
                data = read c
            }
            close c
        }
    }
    close l
}
let replies = channel(3)
repeat 3 as i {
    spawn client {
        let s = connect l.address
        assert s.peer == l.address
        write s "hello " + i
        let reply = read s
        close s
        send replies reply
    }
}
join_all
close replies
let r = recv replies
while r != none {
    print r
    r = recv replies
}
)";

}  // namespace

TEST_CASE("a TCP echo server and its clients - on epoll and on io_uring") {
    for (const std::string reactor : {"epoll", "uring"}) {
        CAPTURE(reactor);
        const auto r = run_script(echo_script, {}, with_reactor(reactor));
        CHECK(r.err == "");
        CHECK(sorted_lines(r.out) == std::vector<std::string>{"hello 0", "hello 1", "hello 2"});
    }
}

// single_issuer is for current_thread runtimes only (multi_thread refuses it).
TEST_CASE("a script runs on io_uring with single_issuer - one thread drives it" *
          doctest::test_suite("current_thread_only")) {
    rtkit::runtime_config config = with_reactor("uring");
    config.reactor.strict = true;
    config.reactor.options["uring"] = {{"single_issuer", true}};
    const auto r = run_script(echo_script, {}, config);
    CHECK(r.err == "");
    CHECK(sorted_lines(r.out) == std::vector<std::string>{"hello 0", "hello 1", "hello 2"});
}

TEST_CASE("IPv6 loopback works too") {
    const auto r = run_script(R"(let l = listen "[::1]:0"
spawn server {
    let c = accept l
    write c "over v6"
    close c
}
let s = connect l.address
print read s read s == ""
)");
    CHECK(r.err == "");
    CHECK(r.out == "over v6 true\n");
}

TEST_CASE("only loopback addresses - bad ones are named") {
    CHECK(first_error(run_script("let l = listen \"0.0.0.0:0\"\n")) ==
          "1:9: error: listen: '0.0.0.0:0' is not a loopback address: scripts may only use "
          "127.0.0.1 and [::1]");
    CHECK(first_error(run_script("let s = connect \"10.1.2.3:80\"\n")) ==
          "1:9: error: connect: '10.1.2.3:80' is not a loopback address: scripts may only use "
          "127.0.0.1 and [::1]");
    CHECK(first_error(run_script("let l = listen \"localhost\"\n"))
              .rfind("1:9: error: listen: bad address 'localhost': ", 0) == 0);
    CHECK(first_error(run_script("let l = listen 80\n")) ==
          "1:16: error: listen needs a string, not an integer");
}

TEST_CASE("socket errors are runtime errors with the position") {
    // A port nobody listens on: bind one, close it, connect to it.
    const auto refused = run_script(R"(let l = listen "127.0.0.1:0"
let address = l.address
close l
let s = connect address
)");
    CHECK(refused.failed);
    CHECK(first_error(refused).rfind("4:9: error: ", 0) == 0);
    CHECK(refused.err.find("refused") != std::string::npos);

    const auto in_use = run_script(R"(let l = listen "127.0.0.1:0"
let again = listen l.address
)");
    CHECK(first_error(in_use).rfind("2:13: error: ", 0) == 0);
    CHECK(in_use.err.find("in use") != std::string::npos);
}

TEST_CASE("closed sockets: operations fail by name - closing twice too") {
    const auto r = run_script(R"(let l = listen "127.0.0.1:0"
spawn server {
    let c = accept l
    close c
}
let s = connect l.address
print "end of stream:" read s == ""
close s
let w = spawn writer {
    write s "late"
}
print (join w).message
close l
close l
)");
    CHECK(r.failed);
    CHECK(r.out.rfind("end of stream: true\nwrite on a closed stream (127.0.0.1:", 0) == 0);
    CHECK(first_error(r).rfind("14:1: error: the listener (127.0.0.1:", 0) == 0);
}

// The reader is in its read when `close` runs only because one thread ran it
// up to there at the yield.
TEST_CASE("close ends a wait in accept or read in another task as the end of the socket does" *
          doctest::test_suite("current_thread_order")) {
    for (const std::string reactor : {"epoll", "uring"}) {
        CAPTURE(reactor);
        const auto r = run_script(R"(let l = listen "127.0.0.1:0"
let accepted = channel(1)
let acceptor = spawn acceptor {
    let c = accept l
    send accepted c
    print "accept gave" accept l == none
}
let client = connect l.address
let c = recv accepted
let reader = spawn reader {
    print "read gave" read c == ""
}
yield
close c
join reader
close l
join acceptor
)",
                                  {}, with_reactor(reactor));
        CHECK(r.err == "");
        CHECK(r.out == "read gave true\naccept gave true\n");
    }
}

TEST_CASE("connect localhost:PORT - the name is resolved - on epoll and on io_uring") {
    for (const std::string reactor : {"epoll", "uring"}) {
        CAPTURE(reactor);
        const auto r = run_script(R"(let l = listen "127.0.0.1:0"
spawn server {
    let c = accept l
    write c "by name"
    close c
}
let s = connect ("localhost:" + l.port)
print s.peer == l.address
print read s
)",
                                  {}, with_reactor(reactor));
        CHECK(r.err == "");
        CHECK(r.out == "true\nby name\n");
    }
    CHECK(first_error(run_script("let s = connect \"localhost:http\"\n"))
              .rfind("1:9: error: connect: bad address 'localhost:http': ", 0) == 0);
}

namespace {

/// A loopback listener whose accept queue is full: with a backlog of 0 the
/// kernel completes one handshake nobody accepts (done when the blocking
/// connect returns), then drops further SYNs, so a connect to it hangs.
class full_listener {
  public:
    full_listener() {
        listening_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        REQUIRE(::bind(listening_, reinterpret_cast<sockaddr*>(&address), size) == 0);
        REQUIRE(::listen(listening_, 0) == 0);
        REQUIRE(::getsockname(listening_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port_ = ntohs(address.sin_port);
        filler_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(::connect(filler_, reinterpret_cast<sockaddr*>(&address), size) == 0);
    }
    ~full_listener() {
        ::close(filler_);
        ::close(listening_);
    }
    int port() const { return port_; }

  private:
    int listening_ = -1, filler_ = -1, port_ = 0;
};

}  // namespace

TEST_CASE("connect ... timeout D gives up - by address and by name - on epoll and on io_uring") {
    const full_listener full;
    for (const std::string reactor : {"epoll", "uring"}) {
        for (const std::string host : {"127.0.0.1", "localhost"}) {
            CAPTURE(reactor);
            CAPTURE(host);
            const std::string address = host + ":" + std::to_string(full.port());
            const auto r = run_script(
                "let s = connect \"" + address + "\" timeout 100ms\nprint \"connected\"\n", {},
                with_reactor(reactor));
            CHECK(r.failed);
            CHECK(r.out == "");
            CHECK(first_error(r).rfind("1:9: error: connect to ", 0) == 0);
            CHECK(r.err.find("timed out") != std::string::npos);
        }
    }
    // Within its time, connect with a timeout connects as one without.
    const auto quick = run_script(R"(let l = listen "127.0.0.1:0"
let s = connect l.address timeout 5s
print s.peer == l.address
)");
    CHECK(quick.err == "");
    CHECK(quick.out == "true\n");
    CHECK(first_error(run_script("let s = connect \"127.0.0.1:1\" timeout 5\n")) ==
          "1:39: error: connect ... timeout needs a duration such as 10ms, not an integer");
}
