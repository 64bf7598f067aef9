#pragma once
// Everything a program that embeds rtkit needs: runtimes and tasks, task
// sets, time (sleep, intervals), cancellation and combinators, blocking calls
// on a pool of threads, networking (rtkit::net), signals and the sync
// primitives (channels, broadcast, watch, oneshot, notify, semaphore, mutex).
// Building a runtime from a TOML file is in the configuration library:
// rtkit/config/make_runtime.hpp (CMake target rtkit::config).
#include "rtkit/blocking.hpp"
#include "rtkit/combinators.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/diagnostics.hpp"
#include "rtkit/interval.hpp"
#include "rtkit/join_handle.hpp"
#include "rtkit/net.hpp"
#include "rtkit/outcome.hpp"
#include "rtkit/plugin_loader.hpp"
#include "rtkit/runtime.hpp"
#include "rtkit/runtime_config.hpp"
#include "rtkit/signal.hpp"
#include "rtkit/sync/all.hpp"
#include "rtkit/task.hpp"
#include "rtkit/task_set.hpp"
#include "rtkit/time.hpp"
