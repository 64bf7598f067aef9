#pragma once
// rtkit::interp::signal_object: a script's listener for POSIX signals, on
// rtkit::signal_stream.
#include <memory>
#include <string>
#include <vector>

#include <rtkit/signal.hpp>
#include <rtkit/sync/mutex.hpp>
#include <rtkit/task.hpp>

#include "rtkit/script/object.hpp"

namespace rtkit::interp {

/// `signal("SIGINT", "SIGTERM")`: listens for the named signals from its
/// creation until the last copy goes (the signal's old disposition then
/// comes back); `recv S` gives the name of the next one that arrived. One
/// task waits at a time (others wait their turn); a cancelled wait takes
/// nothing.
class signal_object final : public script::object {
  public:
    /// Listens for the signals `names` names ("SIGHUP", ...). A runtime error
    /// at `where` for a name it does not know or a signal that cannot be
    /// awaited.
    static std::shared_ptr<signal_object> listen(const std::vector<std::string>& names,
                                                 script::source_pos where);

    /// The name of the next signal that arrived, waiting for one.
    rtkit::task<script::value> next();

    std::string_view type_name() const noexcept override { return "a signal stream"; }
    std::string display() const override { return "signal(" + names_ + ")"; }

    signal_object(rtkit::signal_stream stream, std::string names)
        : stream_(std::move(stream)), names_(std::move(names)) {}

  private:
    rtkit::signal_stream stream_;
    std::string names_;  ///< "SIGINT, SIGTERM", for display
    rtkit::sync::mutex<> waiting_;
};

}  // namespace rtkit::interp
