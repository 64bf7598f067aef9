#pragma once
// rtkit::interp::task_failed: a script task ended with an error that has
// already been reported. Joining such a task fails the joiner without printing
// the error a second time.
#include <exception>

namespace rtkit::interp {

class task_failed : public std::exception {
  public:
    const char* what() const noexcept override { return "a script task failed (reported above)"; }
};

}  // namespace rtkit::interp
