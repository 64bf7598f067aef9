// Every command's replies and errors, through the real redis-cli, on each
// runtime. The expected text is what redis-server 7.0 prints for the same
// script (checked against it when the script was written).
#include <doctest/doctest.h>

#include <string>

#include "processes.hpp"

using namespace mini_redis_test;

namespace {

// One command per line, as redis-cli reads them from standard input.
const std::string script = R"(PING
PING hello
ECHO "two words"
SET k v
GET k
GET missing
SET k v2 NX
SET k v3 XX
GET k
SET fresh v XX
SET fresh v NX
SET fresh again NX
DEL k fresh missing
EXISTS k fresh
SET n 10
INCR n
DECR n
DECR n
INCR newcounter
SET s abc
INCR s
SET max 9223372036854775807
INCR max
SET min -9223372036854775808
DECR min
SET spaced " 1"
INCR spaced
MSET a 1 b 2 c 3
MGET a b missing c
MSET a
MSET a 1 b
EXISTS a b c a
DBSIZE
SET t v EX 100
TTL t
SET t v
TTL t
TTL missing
PTTL missing
EXPIRE a 100
TTL a
EXPIRE missing 100
EXPIRE a 0
EXISTS a
EXPIRE b abc
EXPIRE b 10 NX
EXPIRE b 99999999999999999
SET x 1 EX 0
SET x 1 PX -5
SET x 1 EX abc
SET x 1 NX XX
SET x 1 EX 10 PX 10
SET x 1 FOO
SET x 1 EX
set lower case
get lower
GET
GET a b
FOO bar baz
PUBLISH nobody hello
CONFIG GET save
CONFIG GET appendonly
CONFIG GET nosuch
CONFIG
UNSUBSCRIBE
DBSIZE
SET e1 v
EXPIRE e1 100 XX
EXPIRE e1 100 GT
EXPIRE e1 100 LT
EXPIRE e1 100 NX
EXPIRE e1 200 XX
EXPIRE e1 300 GT
EXPIRE e1 100 GT
EXPIRE e1 50 LT
TTL e1
EXPIRE e1 100 NX
EXPIRE e1 100 NX XX
EXPIRE e1 100 GT LT
EXPIRE e1 100 FOO
EXPIRE e1 -1 XX
EXISTS e1
)";

const std::string replies = R"(PONG
"hello"
"two words"
OK
"v"
(nil)
(nil)
OK
"v3"
(nil)
OK
(nil)
(integer) 2
(integer) 0
OK
(integer) 11
(integer) 10
(integer) 9
(integer) 1
OK
(error) ERR value is not an integer or out of range
OK
(error) ERR increment or decrement would overflow
OK
(error) ERR increment or decrement would overflow
OK
(error) ERR value is not an integer or out of range
OK
1) "1"
2) "2"
3) (nil)
4) "3"
(error) ERR wrong number of arguments for 'mset' command
(error) ERR wrong number of arguments for 'mset' command
(integer) 4
(integer) 9
OK
(integer) 100
OK
(integer) -1
(integer) -2
(integer) -2
(integer) 1
(integer) 100
(integer) 0
(integer) 1
(integer) 0
(error) ERR value is not an integer or out of range
(integer) 1
(error) ERR invalid expire time in 'expire' command
(error) ERR invalid expire time in 'set' command
(error) ERR invalid expire time in 'set' command
(error) ERR value is not an integer or out of range
(error) ERR syntax error
(error) ERR syntax error
(error) ERR syntax error
(error) ERR syntax error
OK
"case"
(error) ERR wrong number of arguments for 'get' command
(error) ERR wrong number of arguments for 'get' command
(error) ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' 
(integer) 0
1) "save"
2) ""
1) "appendonly"
2) "no"
(empty array)
(error) ERR wrong number of arguments for 'config' command
1) "unsubscribe"
2) (nil)
3) (integer) 0
(integer) 10
OK
(integer) 0
(integer) 0
(integer) 1
(integer) 0
(integer) 1
(integer) 1
(integer) 0
(integer) 1
(integer) 50
(integer) 0
(error) ERR NX and XX, GT or LT options at the same time are not compatible
(error) ERR GT and LT options at the same time are not compatible
(error) ERR Unsupported option FOO
(integer) 1
(integer) 0
)";

}  // namespace

TEST_CASE("commands: replies and errors as redis-server gives them - through redis-cli") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        const run_result cli = redis_cli(s.port(), {}, script);
        CHECK(cli.status == 0);
        CHECK(cli.err == "");
        CHECK(cli.out == replies);
    }
}
