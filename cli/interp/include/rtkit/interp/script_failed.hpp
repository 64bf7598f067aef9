#pragma once
// rtkit::interp::script_failed: what interpreter::run() throws when the
// script failed; its errors were printed already.
#include <exception>

namespace rtkit::interp {

class script_failed : public std::exception {
  public:
    const char* what() const noexcept override { return "the script failed (reported above)"; }
};

}  // namespace rtkit::interp
