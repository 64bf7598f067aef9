// libFuzzer harness: the interpreter on any bytes that parse as a script.
// The program runs through rtkit::interp::interpreter on a real runtime with
// the built-in plugins: the current-thread flavor, or for one input in four
// (chosen by a hash of its bytes, so that a finding replays the same way)
// multi_thread with two workers. Bytes that do not parse are left to the
// script_front_end harness.
//
// Rules checked besides "no crash, no leak, no undefined behaviour": run()
// ends normally or throws script_failed, and throws exactly when errors were
// printed; every printed error carries a position inside the text (its own,
// or for an error about waiting tasks, a note's); afterwards every task has
// ended (the runtime is quiescent), the runtime reported nothing (no lost
// failure, no leaked task) and no file descriptor is left open.
//
// Bounds, so that each input ends within tens of milliseconds: a step
// budget of 1,000 (a loop that never waits ends with the budget's error) and
// a time limit of 25 ms (interpreter_options::max_time), which ends
// everything else that could take long: `sleep 1000s`, a `timeout` of a
// computed duration, `spin`, an `accept` no client comes to. The deadlock
// watch looks every 5 ms (interpreter_options::deadlock_watch_period), so a
// deadlock is reported as such, within 15 ms, before the time limit.
// What the script prints is counted, not kept, and what it holds in memory
// is capped: a thread stops the script (interpreter::stop) when the heap
// grows by more than 256 MiB, since 1,000 statements can otherwise hold a
// gigabyte of 1 MiB strings; such an input is only checked for the rest.
//
// Sockets: scripts may only use loopback addresses (the interpreter refuses
// others), but a fuzz input could still reach other programs' servers on
// 127.0.0.1. So the harness runs in a network namespace of its own, whose
// loopback holds only the scripts' own listeners (an unprivileged user
// namespace makes it). Where that is not allowed, it skips every input that
// mentions `listen` or `connect`, and says so once at start.
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <sanitizer/allocator_interface.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>

#include <rtkit/diagnostics.hpp>
#include <rtkit/runtime.hpp>
#include <rtkit/task.hpp>

#include "builtin_plugins.hpp"
#include "fuzz_support.hpp"
#include "rtkit/interp/interpreter.hpp"
#include "rtkit/interp/script_failed.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "text_positions.hpp"

using rtkit_fuzz::expect;
using rtkit_fuzz::fuzz_failure;
using namespace std::chrono_literals;
namespace script = rtkit::script;

namespace {

constexpr std::string_view source_name = "fuzz.rts";
// Under the sanitizers a step takes 3 to 100 microseconds (a spawn is the
// dearest): these bounds are what sets the harness's speed (README.md).
constexpr std::uint64_t step_budget = 1'000;
constexpr std::uint64_t task_limit = 200;
constexpr rtkit::duration time_limit = 25ms;
constexpr rtkit::duration deadlock_watch_period = 5ms;
constexpr std::size_t heap_cap_bytes = 256u << 20;
/// What the error stream keeps; a script can print more (one error per
/// failed task, each with a message up to 1 MiB), and the rest is counted.
constexpr std::size_t error_text_cap = 1u << 20;

bool own_loopback = false;

/// Writes "FROM TO 1" to /proc/self/FILE: maps our own id into the namespace.
bool write_proc_self(const char* file, const std::string& text) {
    const int fd = ::open((std::string("/proc/self/") + file).c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return written;
}

/// Moves the process into new user and network namespaces and brings their
/// loopback interface up. False when the system does not allow it.
bool enter_own_network() {
    const uid_t uid = ::getuid();
    const gid_t gid = ::getgid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return false;
    // Our ids, mapped to themselves, so that the files libFuzzer writes (the
    // corpus, findings) belong to us as before.
    if (!write_proc_self("setgroups", "deny") ||
        !write_proc_self("uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
        !write_proc_self("gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
        return false;
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return false;
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    bool up = ::ioctl(s, SIOCGIFFLAGS, &request) == 0;
    request.ifr_flags |= IFF_UP;
    up = up && ::ioctl(s, SIOCSIFFLAGS, &request) == 0;
    ::close(s);
    return up;
}

/// A stream buffer that keeps the first `cap` bytes written and counts the rest.
class capped_buffer : public std::streambuf {
  public:
    explicit capped_buffer(std::size_t cap) : cap_(cap) {}
    const std::string& text() const noexcept { return text_; }
    bool truncated() const noexcept { return dropped_ > 0; }

  protected:
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) {
            const char ch = traits_type::to_char_type(c);
            xsputn(&ch, 1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        const std::size_t size = static_cast<std::size_t>(n);
        const std::size_t kept = std::min(size, cap_ - text_.size());
        text_.append(s, kept);
        dropped_ += size - kept;
        return n;
    }

  private:
    std::size_t cap_;
    std::string text_;
    std::size_t dropped_ = 0;
};

/// Stops the running script when the heap grows past heap_cap_bytes.
class heap_watch {
  public:
    heap_watch() : thread_([this] { watch(); }) { thread_.detach(); }

    void begin(rtkit::interp::interpreter& running) {
        std::lock_guard guard(lock_);
        running_ = &running;
        baseline_ = __sanitizer_get_current_allocated_bytes();
        stopped_ = false;
    }
    /// Ends the watch of the current script; true when it was stopped.
    bool end() {
        std::lock_guard guard(lock_);
        running_ = nullptr;
        return stopped_;
    }

  private:
    void watch() {
        while (true) {
            std::this_thread::sleep_for(1ms);
            std::lock_guard guard(lock_);
            if (!running_ || stopped_) continue;
            if (__sanitizer_get_current_allocated_bytes() > baseline_ + heap_cap_bytes) {
                running_->stop("the fuzz harness's heap cap");
                stopped_ = true;
            }
        }
    }

    std::mutex lock_;
    rtkit::interp::interpreter* running_ = nullptr;  ///< guarded by lock_
    std::size_t baseline_ = 0;                       ///< guarded by lock_
    bool stopped_ = false;                           ///< guarded by lock_
    std::thread thread_;
};

heap_watch* heap = nullptr;

std::mutex diagnostics_lock;
std::string diagnostics;  ///< what the runtime reported during the current input

/// Counts the entries of /proc/self/fd with the raw getdents64 system call
/// and a buffer on the stack: std::filesystem allocates a 32 KiB buffer per
/// scan, which under AddressSanitizer costs more than a short script.
std::size_t open_descriptors() {
    const int dir = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    expect(dir >= 0, "/proc/self/fd can be read", std::strerror(errno));
    alignas(8) char buffer[4096];
    std::size_t entries = 0;
    while (true) {
        const long got = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer);
        expect(got >= 0, "/proc/self/fd can be read", std::strerror(errno));
        if (got == 0) break;
        for (long at = 0; at < got;) {
            const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
            if (entry->d_name[0] != '.') ++entries;
            at += entry->d_reclen;
        }
    }
    ::close(dir);
    return entries - 1;  // the directory's own descriptor
}

/// FNV-1a: a stable choice of flavor per input.
std::uint64_t hash(std::string_view bytes) {
    std::uint64_t h = 1469598103934665603ull;
    for (const unsigned char c : bytes)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

/// Parses "fuzz.rts:LINE:COLUMN: KIND: " at the start of `line`; true when
/// it is there, with `kind` "error" or "note".
bool positioned(std::string_view line, std::uint32_t& at_line, std::uint32_t& at_column,
                std::string_view& kind) {
    if (!line.starts_with(source_name) || line.size() <= source_name.size() ||
        line[source_name.size()] != ':')
        return false;
    line.remove_prefix(source_name.size() + 1);
    auto number = [&line](std::uint32_t& n) {
        std::size_t digits = 0;
        n = 0;
        while (digits < line.size() && digits < 9 && line[digits] >= '0' && line[digits] <= '9')
            n = n * 10 + static_cast<std::uint32_t>(line[digits++] - '0');
        if (digits == 0 || digits == line.size() || line[digits] != ':') return false;
        line.remove_prefix(digits + 1);
        return true;
    };
    if (!number(at_line) || !number(at_column) || !line.starts_with(' ')) return false;
    line.remove_prefix(1);
    for (std::string_view k : {std::string_view("error"), std::string_view("note")})
        if (line.starts_with(k) && line.substr(k.size()).starts_with(": ")) {
            kind = k;
            return true;
        }
    return false;
}

/// The rules on what a failed script printed to its error stream.
void check_errors(std::string_view errors, std::string_view text) {
    expect(!errors.empty(), "a failed script printed an error");
    bool in_report = false;
    bool report_has_position = false;
    std::string_view report;
    auto end_report = [&] {
        if (in_report)
            expect(report_has_position,
                   "every error has a position inside the text (its own or a note's)",
                   std::string(report));
    };
    while (!errors.empty()) {
        const std::size_t end = std::min(errors.find('\n'), errors.size());
        const std::string_view line = errors.substr(0, end);
        errors.remove_prefix(std::min(end + 1, errors.size()));
        std::uint32_t at_line = 0, at_column = 0;
        std::string_view kind;
        const bool has_position = positioned(line, at_line, at_column, kind);
        if (has_position)
            expect(rtkit_fuzz::inside(text, at_line, at_column),
                   "every position printed lies inside the text", std::string(line));
        if (line.starts_with("error: ") || (has_position && kind == "error")) {
            end_report();
            in_report = true;
            report_has_position = has_position;
            report = line;
        } else if (has_position) {
            expect(in_report, "a note follows an error", std::string(line));
            report_has_position = true;
        } else {
            expect(in_report, "the error output starts with an error", std::string(line));
        }
    }
    end_report();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // A frame from the kernel's own pools would hide a use after free of a
    // task from AddressSanitizer: the kernel must see this build's ASan.
    void* frame = rtkit::detail::allocate_frame(64);
    expect(__sanitizer_get_ownership(frame) != 0,
           "coroutine frames come from AddressSanitizer's allocator");
    rtkit::detail::free_frame(frame, 64);
    // Before any thread starts: a process with several threads cannot unshare.
    own_loopback = enter_own_network();
    if (!own_loopback)
        std::fprintf(stderr,
                     "fuzz_interpreter: no network namespace of its own here (%s): inputs that "
                     "mention listen or connect are skipped\n",
                     std::strerror(errno));
    ::unsetenv("RTKIT_PLUGIN_PATH");
    ::unsetenv("RTKIT_ALLOW_INSECURE_PLUGINS");
    rtkit_fuzz::keep_builtin_plugins_loaded();
    rtkit::set_diagnostic_hook([](const rtkit::diagnostic& d) {
        std::lock_guard guard(diagnostics_lock);
        diagnostics += d.message + '\n';
    });
    heap = new heap_watch();  // lives as long as the process, as its thread does
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (!own_loopback && (bytes.find("listen") != std::string_view::npos ||
                          bytes.find("connect") != std::string_view::npos))
        return -1;
    auto file = std::make_shared<const script::source_file>(
        script::source_file{std::string(source_name), std::string(bytes)});
    std::optional<script::program> program;
    try {
        program = script::parse(file);
    } catch (const script::script_error&) {
        return -1;  // the front end's harness covers what does not parse
    }

    rtkit::runtime_config config;
    if (hash(bytes) % 4 == 0) {
        config.flavor = "multi_thread";
        config.workers = 2;
    }
    const std::size_t descriptors_before = open_descriptors();
    {
        std::lock_guard guard(diagnostics_lock);
        diagnostics.clear();
    }
    capped_buffer printed(0), errors(error_text_cap);
    std::ostream out(&printed), err(&errors);
    rtkit::interp::interpreter interpreter(
        *program, out, err,
        rtkit::interp::interpreter_options{.max_steps = step_budget,
                                           .max_tasks = task_limit,
                                           .max_time = time_limit,
                                           .deadlock_watch_period = deadlock_watch_period});
    bool failed = false;
    bool stopped_by_heap_cap = false;
    {
        rtkit::runtime runtime(config);
        heap->begin(interpreter);
        try {
            runtime.block_on(interpreter.run(runtime));
        } catch (const rtkit::interp::script_failed&) {
            failed = true;
        } catch (const std::exception& e) {
            fuzz_failure("run() ends normally or throws script_failed", e.what());
        }
        stopped_by_heap_cap = heap->end();
        // On two workers, the last tasks may still be retiring for a moment.
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (!runtime.is_quiescent() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        expect(runtime.is_quiescent(), "every task of the script ended");
    }
    {
        std::lock_guard guard(diagnostics_lock);
        expect(diagnostics.empty(), "the runtime reports nothing: the interpreter reports failures",
               diagnostics);
    }
    expect(open_descriptors() == descriptors_before, "no file descriptor is left open");
    expect(failed == (interpreter.errors_reported() > 0),
           "run() throws script_failed exactly when errors were printed");
    if (!failed) {
        expect(errors.text().empty(), "a script that succeeded printed no error", errors.text());
    } else if (!stopped_by_heap_cap && !errors.truncated()) {
        check_errors(errors.text(), file->text);
    }
    return 0;
}
