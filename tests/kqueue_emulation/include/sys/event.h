/* A test-only emulation of the FreeBSD kqueue API on Linux epoll, so that
 * reactor_kqueue compiles and runs the reactor conformance suite on a machine
 * without kqueue. It is not kqueue: it declares the structure, constants and
 * functions with FreeBSD's layout and values, and implements only what the
 * reactor uses (EVFILT_READ, EVFILT_WRITE and EVFILT_USER with EV_ADD,
 * EV_DELETE, EV_CLEAR and NOTE_TRIGGER). Never installed, never a built-in. */
#ifndef RTKIT_KQUEUE_EMULATION_SYS_EVENT_H
#define RTKIT_KQUEUE_EMULATION_SYS_EVENT_H

#include <stdint.h>
#include <time.h>

#define EVFILT_READ (-1)
#define EVFILT_WRITE (-2)
#define EVFILT_USER (-11)

#define EV_ADD 0x0001
#define EV_DELETE 0x0002
#define EV_ENABLE 0x0004
#define EV_DISABLE 0x0008
#define EV_ONESHOT 0x0010
#define EV_CLEAR 0x0020
#define EV_ERROR 0x4000
#define EV_EOF 0x8000

#define NOTE_TRIGGER 0x01000000

struct kevent {
    uintptr_t ident;
    short filter;
    unsigned short flags;
    unsigned int fflags;
    int64_t data;
    void* udata;
    uint64_t ext[4];
};

#ifdef __cplusplus
extern "C" {
#endif

int kqueue(void);
int kevent(int kq, const struct kevent* changelist, int nchanges, struct kevent* eventlist,
           int nevents, const struct timespec* timeout);

#ifdef __cplusplus
}
#endif

#endif
