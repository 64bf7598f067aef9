// A worker's inbox: what other threads hand to this worker (tasks it must
// queue, requests only it may carry out), and how it takes them in. (The
// push of a task, send_task, is inline in worker.hpp.)
#include <unistd.h>

#include "rtkit/detail/chaos.hpp"
#include "rtkit/detail/region_node.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

void worker::send_request(remote_request* request) noexcept {
    requests_in_.push(request);
    RTKIT_CHAOS_POINT(inbox_pushed);
    parker_.unpark();
}

void worker::drain_inbox() {
    RTKIT_CHAOS_POINT(queue_popping);
    if (!tasks_in_.looks_empty()) {
        worker_group::admission taking(group_);
        // One worker: whatever its inbox holds came from outside (inject()).
        const bool injected = group_.kind() == worker_group::flavor::current_thread;
        while (schedulable* s = tasks_in_.pop()) {
            if (injected) counters_.injected_taken.add();
            take_in(task_of_entry(s));
        }
        group_.note_alive_tasks();
    }
    while (remote_request* r = requests_in_.pop()) {
        RTKIT_CHAOS_POINT(inbox_request);
        carry_out(*r);
        delete r;
    }
}

bool worker::discard_requests() noexcept {
    bool any = false;
    while (remote_request* r = requests_in_.pop()) {
        any = true;
        // Release what the request holds, as carrying it out would have.
        switch (r->what) {
            case remote_request::kind::arm_timer:
            case remote_request::kind::cancel_timer:
                if (r->target) static_cast<remote_timer*>(r->target)->release();
                break;
            case remote_request::kind::cancel_region:
                static_cast<region_node*>(r->target)->leave();
                break;
            case remote_request::kind::promote:
                static_cast<task_header*>(r->target)->release();
                break;
            case remote_request::kind::close_descriptor: {
                // The reactor goes next, with all it holds: just close.
                auto* closing = static_cast<pending_close*>(r->target);
                closing->registration.abandon();
                ::close(closing->fd);
                delete closing;
                break;
            }
        }
        delete r;
    }
    return any;
}

void worker::carry_out(remote_request& request) {
    switch (request.what) {
        case remote_request::kind::arm_timer: {
            auto* t = static_cast<remote_timer*>(request.target);
            if (!t->cancelled) t->id = arm_timer(t->deadline, std::move(t->to_wake));
            t->release();
            break;
        }
        case remote_request::kind::cancel_timer: {
            auto* t = static_cast<remote_timer*>(request.target);
            if (!t) {
                cancel_timer(request.timer);
            } else {
                if (t->id)
                    cancel_timer(t->id);
                else
                    t->cancelled = true;  // the arm comes later: skip it
                t->release();
            }
            break;
        }
        case remote_request::kind::cancel_region: {
            auto* region = static_cast<region_node*>(request.target);
            cancel_region_tasks(*region);
            region->leave();
            break;
        }
        case remote_request::kind::promote: {
            auto* task = static_cast<task_header*>(request.target);
            promote(task);
            task->release();
            break;
        }
        case remote_request::kind::close_descriptor: {
            auto* closing = static_cast<pending_close*>(request.target);
            closing->registration.reset();
            ::close(closing->fd);
            delete closing;
            break;
        }
    }
}

}  // namespace rtkit::detail
