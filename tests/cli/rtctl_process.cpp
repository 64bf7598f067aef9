#include "rtctl_process.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

rtctl_result run_rtctl(const std::vector<std::string>& args, const rtctl_limits& limits) {
    return run_program(RTCTL_PATH, args, limits);
}

rtctl_result run_program(const std::string& path, const std::vector<std::string>& args,
                         const rtctl_limits& limits) {
    // Files, not pipes: nothing to deadlock on whatever rtctl writes.
    char out_path[] = "/tmp/rtctl-out-XXXXXX";
    char err_path[] = "/tmp/rtctl-err-XXXXXX";
    const int out_fd = mkstemp(out_path);
    const int err_fd = mkstemp(err_path);
    if (out_fd < 0 || err_fd < 0) throw std::runtime_error("mkstemp failed");

    std::vector<char*> argv;
    std::string program = path;
    argv.push_back(program.data());
    std::vector<std::string> copies(args);
    for (auto& a : copies)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid == 0) {
        // O_NONBLOCK: opening a FIFO with no writer must not block the child
        // before it even runs (the test is then about what rtctl does with it).
        const int in_fd = open(limits.stdin_path.c_str(), O_RDONLY | O_NONBLOCK);
        if (in_fd < 0) _exit(125);
        fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) & ~O_NONBLOCK);
        dup2(in_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        if (chdir(RTKIT_SOURCE_DIR) != 0) _exit(126);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
        if (limits.memory_limit_bytes != 0) {
            const rlimit cap{limits.memory_limit_bytes, limits.memory_limit_bytes};
            setrlimit(RLIMIT_AS, &cap);
        }
#endif
        alarm(limits.timeout_seconds);  // kept across execv
        execv(argv[0], argv.data());
        _exit(127);
    }
    int wait_status = 0;
    waitpid(pid, &wait_status, 0);
    close(out_fd);
    close(err_fd);

    rtctl_result result;
    result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    result.out = slurp(out_path);
    result.err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    return result;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}
