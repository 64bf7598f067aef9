#include "rtkit/config/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rtkit::config {
namespace {

const char* file_type_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

/// Closes the descriptor it was given.
struct fd_closer {
    int fd;
    ~fd_closer() {
        if (fd >= 0) ::close(fd);
    }
};

[[noreturn]] void fail_with_errno() {
    throw input_error(std::strerror(errno));
}

/// Reads until end of file, refusing more than max_input_bytes.
std::string read_bounded(int fd) {
    std::string text;
    std::size_t used = 0;
    while (true) {
        // Room for one byte more than the limit tells "exactly the limit" from "more".
        if (used == text.size())
            text.resize(std::min(max_input_bytes + 1, std::max<std::size_t>(64 * 1024, used * 2)));
        const ssize_t got = ::read(fd, text.data() + used, text.size() - used);
        if (got < 0) {
            if (errno == EINTR) continue;
            fail_with_errno();
        }
        if (got == 0) break;
        used += static_cast<std::size_t>(got);
        if (used > max_input_bytes)
            throw input_error("it is larger than the " + std::to_string(max_input_bytes >> 20) +
                              " MiB limit on input files");
    }
    text.resize(used);
    return text;
}

}  // namespace

std::string input_name(const std::filesystem::path& path) {
    return path == "-" ? "<stdin>" : path.string();
}

std::string read_input_file(const std::filesystem::path& path) {
    if (path == "-") return read_bounded(STDIN_FILENO);
    // O_NONBLOCK: opening a FIFO must not wait for a writer before the type
    // check below refuses it (it changes nothing for a regular file).
    const fd_closer file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    if (file.fd < 0) fail_with_errno();
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) fail_with_errno();
    if (!S_ISREG(st.st_mode))
        throw input_error(std::string("it is ") + file_type_name(st.st_mode) +
                          ", not a regular file; give a file, or '-' for standard input");
    return read_bounded(file.fd);
}

}  // namespace rtkit::config
