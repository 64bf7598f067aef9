#pragma once
// Everything a program that embeds rtkit needs.
#include "rtkit/combinators.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/diagnostics.hpp"
#include "rtkit/join_handle.hpp"
#include "rtkit/outcome.hpp"
#include "rtkit/plugin_loader.hpp"
#include "rtkit/runtime.hpp"
#include "rtkit/runtime_config.hpp"
#include "rtkit/task.hpp"
#include "rtkit/time.hpp"
