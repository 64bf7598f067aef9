#pragma once
// Captures what the process writes to stderr (fd 2) while it lives, for tests
// of what rtkit says there.
#include <unistd.h>

#include <cstdio>
#include <string>

namespace rtkit::test {

class stderr_capture {
  public:
    stderr_capture() : file_(std::tmpfile()), saved_(::dup(2)) {
        std::fflush(stderr);
        ::dup2(::fileno(file_), 2);
    }
    ~stderr_capture() {
        restore();
        std::fclose(file_);
    }
    stderr_capture(const stderr_capture&) = delete;
    stderr_capture& operator=(const stderr_capture&) = delete;

    /// Restores stderr and returns what was written meanwhile.
    std::string text() {
        restore();
        std::rewind(file_);
        std::string out;
        char buf[512];
        std::size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0)
            out.append(buf, n);
        return out;
    }

  private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        ::dup2(saved_, 2);
        ::close(saved_);
        saved_ = -1;
    }
    std::FILE* file_;
    int saved_;
};

}  // namespace rtkit::test
