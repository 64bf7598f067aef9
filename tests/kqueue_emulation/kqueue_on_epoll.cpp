// kqueue() and kevent() emulated on epoll, for tests only (see sys/event.h
// here). One epoll entry per descriptor serves its read and write filters
// (edge-triggered when both use EV_CLEAR); EVFILT_USER is an eventfd.
// Differences from kqueue that the reactor does not depend on: EV_ERROR
// change reports, data (always 0), and fflags of a failed socket (EIO
// rather than the socket's error, which only SO_ERROR could read, and reading
// it would clear it).
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

/// The epoll user data of the EVFILT_USER eventfd; descriptors use their number.
constexpr std::uint64_t user_key = UINT64_MAX;

struct filter {
    bool on = false;
    bool clear = false;  ///< EV_CLEAR: reported once per change
    void* udata = nullptr;
};

struct descriptor_filters {
    filter read, write;
};

/// One emulated kqueue: its epoll instance and the filters added to it.
struct queue {
    std::mutex mutex;
    int epoll_fd = -1;
    std::unordered_map<int, descriptor_filters> descriptors;
    int user_fd = -1;  ///< eventfd behind EVFILT_USER
    filter user;
    std::uintptr_t user_ident = 0;
    std::deque<struct kevent> undelivered;  ///< events beyond the caller's array
};

std::mutex registry_mutex;
/// Keyed by the epoll descriptor, which is what kqueue() returns; a number
/// reused by a new kqueue() replaces the closed one's entry.
std::unordered_map<int, std::shared_ptr<queue>> registry;

std::shared_ptr<queue> find_queue(int kq) {
    std::lock_guard lock(registry_mutex);
    auto it = registry.find(kq);
    return it == registry.end() ? nullptr : it->second;
}

int fail(int error) {
    errno = error;
    return -1;
}

std::uint32_t epoll_events_of(const descriptor_filters& f) {
    std::uint32_t events = 0;
    if (f.read.on) events |= EPOLLIN | EPOLLRDHUP;
    if (f.write.on) events |= EPOLLOUT;
    if ((!f.read.on || f.read.clear) && (!f.write.on || f.write.clear)) events |= EPOLLET;
    return events;
}

/// Installs `f` for `fd`: ADD or MOD, whichever epoll still needs (a closed
/// descriptor left epoll on its own, as it leaves a real kqueue).
int install(queue& q, int fd, const descriptor_filters& f, bool known) {
    epoll_event ev{};
    ev.events = epoll_events_of(f);
    ev.data.u64 = static_cast<std::uint64_t>(fd);
    int rc = epoll_ctl(q.epoll_fd, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
    if (rc < 0 && known && errno == ENOENT) rc = epoll_ctl(q.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    if (rc < 0 && !known && errno == EEXIST) rc = epoll_ctl(q.epoll_fd, EPOLL_CTL_MOD, fd, &ev);
    return rc;
}

int change_descriptor(queue& q, const struct kevent& c) {
    const int fd = static_cast<int>(c.ident);
    auto it = q.descriptors.find(fd);
    const bool known = it != q.descriptors.end();
    descriptor_filters f = known ? it->second : descriptor_filters{};
    filter& target = c.filter == EVFILT_READ ? f.read : f.write;
    if (c.flags & EV_DELETE) {
        if (!target.on) return fail(ENOENT);
        target = filter{};
        if (!f.read.on && !f.write.on) {
            epoll_ctl(q.epoll_fd, EPOLL_CTL_DEL, fd, nullptr);  // ENOENT once closed
            q.descriptors.erase(it);
            return 0;
        }
    } else if (c.flags & EV_ADD) {
        target = filter{true, (c.flags & EV_CLEAR) != 0, c.udata};
    } else {
        return fail(EINVAL);
    }
    if (install(q, fd, f, known) < 0) return -1;
    q.descriptors[fd] = f;
    return 0;
}

int change_user(queue& q, const struct kevent& c) {
    if (c.flags & EV_ADD) {
        if (q.user_fd < 0) {
            q.user_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (q.user_fd < 0) return -1;
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.u64 = user_key;
            if (epoll_ctl(q.epoll_fd, EPOLL_CTL_ADD, q.user_fd, &ev) < 0) return -1;
        }
        q.user = filter{true, (c.flags & EV_CLEAR) != 0, c.udata};
        q.user_ident = c.ident;
    }
    if (c.fflags & NOTE_TRIGGER) {
        if (q.user_fd < 0) return fail(ENOENT);
        const std::uint64_t one = 1;
        if (write(q.user_fd, &one, sizeof one) < 0 && errno != EAGAIN) return -1;
    }
    if (c.flags & EV_DELETE) {
        if (q.user_fd < 0) return fail(ENOENT);
        close(q.user_fd);  // leaves the epoll set with it
        q.user_fd = -1;
        q.user = filter{};
    }
    return 0;
}

struct kevent event_of(std::uintptr_t ident, short filter_id, const filter& f) {
    struct kevent k {};
    k.ident = ident;
    k.filter = filter_id;
    k.udata = f.udata;
    return k;
}

/// The kevents one epoll event stands for.
void translate(queue& q, const epoll_event& e, std::vector<struct kevent>& out) {
    if (e.data.u64 == user_key) {
        if (q.user_fd < 0) return;
        if (q.user.clear) {
            std::uint64_t count = 0;
            [[maybe_unused]] const ssize_t n = read(q.user_fd, &count, sizeof count);
        }
        out.push_back(event_of(q.user_ident, EVFILT_USER, q.user));
        return;
    }
    const int fd = static_cast<int>(e.data.u64);
    auto it = q.descriptors.find(fd);
    if (it == q.descriptors.end()) return;
    const descriptor_filters& f = it->second;
    const bool failed = e.events & EPOLLERR;
    if (f.read.on && (e.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
        struct kevent k = event_of(static_cast<std::uintptr_t>(fd), EVFILT_READ, f.read);
        if (e.events & (EPOLLRDHUP | EPOLLHUP) || failed) k.flags |= EV_EOF;
        if (failed) k.fflags = EIO;
        out.push_back(k);
    }
    if (f.write.on && (e.events & (EPOLLOUT | EPOLLHUP | EPOLLERR))) {
        struct kevent k = event_of(static_cast<std::uintptr_t>(fd), EVFILT_WRITE, f.write);
        if (e.events & (EPOLLHUP | EPOLLERR)) k.flags |= EV_EOF;  // the reader is gone
        out.push_back(k);
    }
}

int hand_out(queue& q, struct kevent* events, int nevents) {
    int n = 0;
    while (n < nevents && !q.undelivered.empty()) {
        events[n++] = q.undelivered.front();
        q.undelivered.pop_front();
    }
    return n;
}

}  // namespace

extern "C" int kqueue(void) {
    const int fd = epoll_create1(EPOLL_CLOEXEC);
    if (fd < 0) return -1;
    auto q = std::make_shared<queue>();
    q->epoll_fd = fd;
    std::lock_guard lock(registry_mutex);
    registry[fd] = std::move(q);
    return fd;
}

extern "C" int kevent(int kq, const struct kevent* changelist, int nchanges,
                      struct kevent* eventlist, int nevents, const struct timespec* timeout) {
    const std::shared_ptr<queue> q = find_queue(kq);
    if (!q) return fail(EBADF);
    {
        std::lock_guard lock(q->mutex);
        for (int i = 0; i < nchanges; ++i) {
            const struct kevent& c = changelist[i];
            int rc = 0;
            if (c.filter == EVFILT_USER)
                rc = change_user(*q, c);
            else if (c.filter == EVFILT_READ || c.filter == EVFILT_WRITE)
                rc = change_descriptor(*q, c);
            else
                rc = fail(EINVAL);
            if (rc < 0) return -1;
        }
        if (nevents <= 0) return 0;
        if (!q->undelivered.empty()) return hand_out(*q, eventlist, nevents);
    }
    epoll_event ready[64];
    const int n = epoll_pwait2(q->epoll_fd, ready, nevents < 64 ? nevents : 64, timeout, nullptr);
    if (n < 0) return -1;
    std::lock_guard lock(q->mutex);
    std::vector<struct kevent> events;
    for (int i = 0; i < n; ++i)
        translate(*q, ready[i], events);
    q->undelivered.insert(q->undelivered.end(), events.begin(), events.end());
    return hand_out(*q, eventlist, nevents);
}
