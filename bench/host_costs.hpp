#pragma once
// `rtbench host`: what this host charges now for the operations that decide
// how rtkit and its peers compare, so that runs on different days can be told
// apart. A VM here boots some days with page-table isolation and without a
// TSC clock source: a system call then costs about 1 us instead of a fraction
// of that, and a clock read goes through kvm-clock; and its two vCPUs may sit
// close together or far apart, which decides what a wake on another worker
// costs.

namespace rtbench {

/// Prints one line: `host clocksource=... meltdown="..." syscall_ns=...
/// clock_gettime_ns=... cpu0_cpu1_round_trip_ns=... rdtsc_ns=...`. Returns the
/// process's exit status.
int print_host_costs();

}  // namespace rtbench
