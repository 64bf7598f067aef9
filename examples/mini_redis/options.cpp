#include "options.hpp"

#include <limits>

#include "text.hpp"

namespace mini_redis {

const char* const usage =
    "usage: rtkit-mini-redis [OPTION]...\n"
    "A redis server (RESP2: strings, expiry, pub/sub) on rtkit.\n"
    "\n"
    "  --config FILE                   the runtime's TOML file (rtkit::config): reactor, flavor, "
    "...\n"
    "  --set KEY=VALUE                 one runtime setting over the file (--set "
    "reactor.plugin=uring)\n"
    "  --bind ADDRESS                  the address to listen on (default 127.0.0.1)\n"
    "  --port PORT                     the port (default 6379; 0 picks a free one)\n"
    "  --maxclients N                  connections past N are refused with an error (default "
    "10000)\n"
    "  --proto-max-bulk-len SIZE       the longest bulk string a client may send (default 512mb)\n"
    "  --client-query-buffer-limit SIZE  the longest request (default 1gb)\n"
    "  --output-buffer-limit SIZE      replies a client may leave unread before it is dropped\n"
    "                                  (default 32mb)\n"
    "  --shutdown-timeout SECONDS      how long a closing connection may take to send what it "
    "owes,\n"
    "                                  and the server to stop on SIGINT / SIGTERM (default 10)\n"
    "  --adaptive-poll yes|no          choose how long the runtime polls before it sleeps from\n"
    "                                  how many commands each read brings (default: yes on\n"
    "                                  current_thread, unless --set runtime.poll_before_park_us\n"
    "                                  or the --config file gives a fixed time)\n"
    "  --adaptive-poll-curve SHORT,LONG,N  poll SHORT microseconds at one command per read,\n"
    "                                  LONG from N commands on, in a line between (default "
    "2,10,8)\n"
    "  --help                          this text\n"
    "\n"
    "SIZE is a number of bytes, or with a unit as redis reads them: 1k = 1000, 1kb = 1024,\n"
    "m, mb, g, gb. The server says 'ready to accept connections on ADDRESS:PORT' on stdout\n"
    "once it listens.\n"
    "\n"
    "SIGINT or SIGTERM stops it: it accepts no more connections, lets each connection run\n"
    "what it has read and send the replies, closes idle ones, and exits 0 once all are\n"
    "gone, or at the shutdown timeout, closing those left. A second signal exits at once\n"
    "(status 1).\n";

namespace {

/// A size as redis's memtoll reads it: "100", "64kb", "1gb", "2m".
std::size_t parse_size(const std::string& option, const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
        ++digits;
    const std::string unit = text.substr(digits);
    std::uint64_t multiplier = 0;
    if (unit.empty() || unit == "b")
        multiplier = 1;
    else if (unit == "k")
        multiplier = 1000;
    else if (unit == "kb")
        multiplier = 1024;
    else if (unit == "m")
        multiplier = 1000 * 1000;
    else if (unit == "mb")
        multiplier = 1024 * 1024;
    else if (unit == "g")
        multiplier = 1000 * 1000 * 1000;
    else if (unit == "gb")
        multiplier = std::uint64_t{1024} * 1024 * 1024;
    const auto number = parse_int64(text.substr(0, digits));
    std::uint64_t bytes = 0;
    if (multiplier == 0 || !number || *number <= 0 ||
        __builtin_mul_overflow(static_cast<std::uint64_t>(*number), multiplier, &bytes) ||
        bytes > std::numeric_limits<std::size_t>::max())
        throw usage_error(option +
                          " needs a size above 0 (bytes, or with k, kb, m, mb, g, gb), not '" +
                          text + "'");
    return static_cast<std::size_t>(bytes);
}

std::int64_t parse_number(const std::string& option, const std::string& text, std::int64_t low,
                          std::int64_t high) {
    const auto value = parse_int64(text);
    if (!value || *value < low || *value > high)
        throw usage_error(option + " needs a whole number from " + std::to_string(low) + " to " +
                          std::to_string(high) + ", not '" + text + "'");
    return *value;
}

/// "2,10,8": the polling time at one command per read, the longest, and from
/// how many commands per read the longest holds.
poll_curve parse_curve(const std::string& option, const std::string& text) {
    const std::size_t first = text.find(',');
    const std::size_t second = first == std::string::npos ? first : text.find(',', first + 1);
    if (second == std::string::npos)
        throw usage_error(option +
                          " needs SHORT,LONG,N (microseconds, microseconds, commands), "
                          "not '" +
                          text + "'");
    poll_curve c;
    c.shortest =
        std::chrono::microseconds(parse_number(option, text.substr(0, first), 0, 1'000'000));
    c.longest = std::chrono::microseconds(
        parse_number(option, text.substr(first + 1, second - first - 1), 0, 1'000'000));
    c.full_at = static_cast<std::size_t>(parse_number(option, text.substr(second + 1), 2, 64));
    return c;
}

}  // namespace

options parse_options(const std::vector<std::string>& args) {
    options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& option = args[i];
        if (option == "--help" || option == "-h") {
            o.help = true;
            continue;
        }
        if (option.rfind("--", 0) != 0) throw usage_error("unexpected argument '" + option + "'");
        if (i + 1 == args.size()) throw usage_error(option + " needs a value");
        const std::string& value = args[++i];
        if (option == "--config") {
            o.config_file = value;
        } else if (option == "--set") {
            o.config_overrides.push_back(value);
        } else if (option == "--bind") {
            o.bind = value;
        } else if (option == "--port") {
            o.port = static_cast<std::uint16_t>(parse_number(option, value, 0, 65535));
        } else if (option == "--maxclients") {
            o.max_clients = static_cast<std::size_t>(parse_number(option, value, 1, 1'000'000));
        } else if (option == "--proto-max-bulk-len") {
            o.limits.max_bulk_length = parse_size(option, value);
        } else if (option == "--client-query-buffer-limit") {
            o.limits.max_request_length = parse_size(option, value);
        } else if (option == "--output-buffer-limit") {
            o.output_buffer_limit = parse_size(option, value);
        } else if (option == "--adaptive-poll") {
            if (value != "yes" && value != "no")
                throw usage_error(option + " needs yes or no, not '" + value + "'");
            o.adaptive_poll = value == "yes";
        } else if (option == "--adaptive-poll-curve") {
            o.adaptive_poll_curve = parse_curve(option, value);
        } else if (option == "--shutdown-timeout") {
            o.shutdown_timeout = std::chrono::seconds(parse_number(option, value, 0, 24 * 60 * 60));
        } else {
            throw usage_error("unknown option '" + option + "'");
        }
    }
    return o;
}

}  // namespace mini_redis
