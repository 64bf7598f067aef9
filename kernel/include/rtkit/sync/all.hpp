#pragma once
// Every rtkit sync primitive: channel, oneshot, notify, semaphore, mutex.
#include "rtkit/sync/channel.hpp"
#include "rtkit/sync/mutex.hpp"
#include "rtkit/sync/notify.hpp"
#include "rtkit/sync/oneshot.hpp"
#include "rtkit/sync/semaphore.hpp"
