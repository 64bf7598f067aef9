#pragma once
// The command line of rtkit-mini-redis.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "poll_tuner.hpp"
#include "request_parser.hpp"

namespace mini_redis {

/// What the server is told on its command line (`usage` lists it).
struct options {
    std::string bind = "127.0.0.1";
    std::uint16_t port = 6379;  ///< 0: a free port, printed when ready
    /// The runtime's TOML file (rtkit::config); none means config/default.toml.
    std::optional<std::string> config_file;
    std::vector<std::string> config_overrides;  ///< --set KEY=VALUE, over the file
    std::size_t max_clients = 10000;            ///< redis's maxclients
    request_limits limits;                      ///< proto-max-bulk-len, client-query-buffer-limit
    std::size_t output_buffer_limit = std::size_t{32} << 20;
    /// How long a connection that is closing (the client left) may take to
    /// write the replies it owes; and how long the server's stop on SIGINT or
    /// SIGTERM may take, all connections together.
    std::chrono::milliseconds shutdown_timeout{10'000};
    /// Whether the runtime's polling time before sleeping follows how many
    /// commands the reads bring (poll_tuner). Unset on the command line: yes
    /// on the current_thread flavor unless runtime.poll_before_park_us is
    /// given (a fixed time), which main() settles before serving.
    std::optional<bool> adaptive_poll;
    /// How it maps commands per read onto the time (--adaptive-poll-curve).
    poll_curve adaptive_poll_curve;
    bool help = false;
};

/// A command line the server cannot run with; what() says what to fix.
class usage_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Reads the arguments (without the program name). Throws usage_error.
options parse_options(const std::vector<std::string>& args);

/// The --help text.
extern const char* const usage;

}  // namespace mini_redis
