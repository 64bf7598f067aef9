#!/usr/bin/env bash
# The installed rtkit package, end to end, used the way a third party uses it:
#   1. cmake --install this build tree into a temporary prefix, and check the
#      installed rtctl finds the installed kernel and built-in plugins, and
#      that it and the installed doc say what each conformance case checks;
#   2. build a copy of examples/third_party_reactor against that prefix (its
#      CMakeLists only has find_package(rtkit CONFIG) and rtkit_add_plugin),
#      and check the plugin exports its descriptor alone;
#   3. run every rtctl command its README shows, in the README's layout and
#      with the README's poll.toml (the suite's summary must be the one the
#      README states); then a timer script on the poll reactor;
#   4. run the conformance suite from a plugin author's own program, linked
#      with rtkit::conformance;
#   5. build and run a program that embeds rtkit with rtkit::config: a runtime
#      from a TOML file in one call, then TCP, a channel and a deadline from
#      <rtkit/rtkit.hpp> alone; the RTKIT_* layer applies only when asked for;
#   6. start the installed rtkit-mini-redis, which must find the installed
#      kernel and plugins.
#
# Usage: package_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR CXX BUILD_TYPE
#                        CXX_FLAGS MODULE_LINKER_FLAGS LIBDIR NM
set -euo pipefail

if [ $# -ne 10 ]; then
    echo "usage: $0 BUILD_DIR SOURCE_DIR CMAKE GENERATOR CXX BUILD_TYPE CXX_FLAGS" \
        "MODULE_LINKER_FLAGS LIBDIR NM" >&2
    exit 2
fi
build_dir=$1 source_dir=$2 cmake=$3 generator=$4 cxx=$5 build_type=$6
cxx_flags=$7 module_linker_flags=$8 libdir=$9 nm=${10}

fail() {
    echo "package test: FAILED: $*" >&2
    exit 1
}
step() { echo "== $*"; }

# Only this test's choices: no RTKIT_* variable from the caller (a plugin path,
# the insecure opt-in, a reactor override) may change what is loaded.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^RTKIT_' || true)
unset LD_LIBRARY_PATH
# The loader refuses plugin files and directories writable by group or others.
umask 022

work=$(mktemp -d "${TMPDIR:-/tmp}/rtkit-package-XXXXXX")
trap 'rm -rf "$work"' EXIT
work=$(cd "$work" && pwd -P)  # the loader prints canonical paths
prefix=$work/prefix
rtctl=$prefix/bin/rtctl
plugin_dir=$prefix/$libdir/rtkit/plugins

step "cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
for file in bin/rtctl bin/rtkit-mini-redis "$libdir/librtkit_kernel.so" "$libdir/rtkit/plugins/rtkit_reactor_epoll.so" \
    "$libdir/rtkit/plugins/rtkit_timer_wheel.so" "$libdir/rtkit/plugins/rtkit_timer_heap.so" \
    "$libdir/rtkit/plugins/rtkit_lanes_three_lane.so" "$libdir/rtkit/plugins/rtkit_lanes_fifo.so" \
    "$libdir/rtkit/plugins/rtkit_lanes_lab.so" include/rtkit/clock.hpp \
    "$libdir/cmake/rtkit/rtkitConfig.cmake" "$libdir/cmake/rtkit/rtkitConfigVersion.cmake" \
    "$libdir/cmake/rtkit/rtkitTargets.cmake" "$libdir/cmake/rtkit/RtkitPlugin.cmake" \
    "$libdir/librtkit_config.so" "$libdir/librtkit_conformance.a" \
    include/rtkit/plugin.hpp include/rtkit/reactor.hpp include/rtkit/config/make_runtime.hpp \
    include/rtkit/conformance/conformance.hpp share/doc/rtkit/conformance.md; do
    [ -e "$prefix/$file" ] || fail "the install has no $file"
done

step "rtctl conformance --list and the installed doc say what each conformance case checks"
"$rtctl" conformance --list >"$work/cases.out" 2>&1 || { cat "$work/cases.out"; fail "rtctl conformance --list"; }
grep -q "^  reactor.signal_does_not_end_poll$" "$work/cases.out" ||
    { cat "$work/cases.out"; fail "rtctl conformance --list does not list reactor.signal_does_not_end_poll"; }
grep -q "^| \`reactor.signal_does_not_end_poll\` |" "$prefix/share/doc/rtkit/conformance.md" ||
    fail "share/doc/rtkit/conformance.md does not list reactor.signal_does_not_end_poll"

step "the installed rtctl uses the installed kernel and its built-in plugins"
"$rtctl" plugins list >"$work/list.out" 2>&1 || { cat "$work/list.out"; fail "rtctl plugins list"; }
# The built-in directory is found beside the kernel library that was loaded:
# the build tree's would mean the install kept a build-tree RPATH.
grep -qx "search path (in order):" "$work/list.out" || { cat "$work/list.out"; fail "no search path"; }
grep -A1 -x "search path (in order):" "$work/list.out" | grep -qx "  $plugin_dir" ||
    { cat "$work/list.out"; fail "the built-in directory is not $plugin_dir"; }
for listed in "epoll reactor_epoll" "wheel timer_wheel" "heap timer_heap" \
    "three_lane lanes_three_lane" "fifo lanes_fifo" "lab lanes_lab"; do
    read -r name file <<<"$listed"
    grep -q "^$name .*$plugin_dir/rtkit_$file.so" "$work/list.out" ||
        { cat "$work/list.out"; fail "the installed $name plugin is not listed"; }
done

# Configures and builds a CMake project against the installed package, with
# this build's compiler and flags (which carry its sanitizer); -Werror keeps
# the examples warning-free.
build_against_prefix() { # SOURCE_DIR BUILD_DIR LOG
    "$cmake" -S "$1" -B "$2" -G "$generator" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
        -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$build_type" \
        -DCMAKE_CXX_FLAGS="$cxx_flags -Wall -Wextra -Wpedantic -Werror" \
        -DCMAKE_MODULE_LINKER_FLAGS="$module_linker_flags" >"$3" 2>&1 &&
        "$cmake" --build "$2" --parallel 2 >>"$3" 2>&1
}

# The README's layout: examples/third_party_reactor with build/ inside it and
# ../scripts/hello.rts beside it.
example=$work/examples/third_party_reactor
readme=$example/README.md
mkdir -p "$work/examples/scripts"
cp -R "$source_dir/examples/third_party_reactor" "$example"
cp "$source_dir/examples/scripts/hello.rts" "$work/examples/scripts/"

step "build examples/third_party_reactor against $prefix"
build_against_prefix "$example" "$example/build" "$work/example.log" ||
    { cat "$work/example.log"; fail "building the example failed"; }
grep -qx "rtkit_DIR:PATH=$prefix/$libdir/cmake/rtkit" "$example/build/CMakeCache.txt" ||
    fail "find_package(rtkit) did not use the package in $prefix: $(grep rtkit_DIR "$example/build/CMakeCache.txt")"
plugin=$example/build/rtkit_reactor_poll.so
[ -f "$plugin" ] || fail "the example built no $plugin"
bash "$source_dir/tests/plugin_abi/exports_test.sh" "$nm" "$plugin" ||
    fail "the example plugin exports more than its descriptor"

step "every rtctl command of the example's README, as written"
# The README's TOML block is the poll.toml its commands use.
awk '/^```toml$/ { inside = 1; next } /^```$/ { inside = 0 } inside' "$readme" >"$example/poll.toml"
grep -q '^plugin = "poll"' "$example/poll.toml" || fail "no poll.toml block in $readme"
mapfile -t commands < <(sed -n 's|^    \$HOME/rtkit/bin/rtctl ||p' "$readme")
clean_summary='^[0-9]+ passed, 0 failed, [0-9]+ skipped$'
cases_in() { # "N passed, F failed, S skipped" -> N + F + S
    local numbers
    read -ra numbers <<<"$(tr -cs '0-9' ' ' <<<"$1")"
    echo $((numbers[0] + numbers[1] + numbers[2]))
}
[ "${#commands[@]}" -ge 4 ] || fail "expected at least 4 rtctl commands in $readme"
for line in "${commands[@]}"; do
    comment=
    [[ $line == *"#"* ]] && comment=$(sed 's/^ *//' <<<"${line#*#}")
    read -ra args <<<"${line%%#*}"
    echo "-- rtctl ${args[*]}"
    (cd "$example" && "$rtctl" "${args[@]}") >"$work/command.out" 2>&1 ||
        { cat "$work/command.out"; fail "the README's command 'rtctl ${args[*]}' failed"; }
    if [ "${args[0]}" = conformance ]; then
        cat "$work/command.out"
        grep -q "^conformance of reactor 'poll' (" "$work/command.out" ||
            fail "the conformance report is not about the poll reactor"
        # "N passed, 0 failed, M skipped": the same number of cases and no
        # failure (which case is skipped may depend on the machine's limits).
        summary=$(tail -n 1 "$work/command.out" | sed 's/^ *//')
        [[ $summary =~ $clean_summary ]] && [[ $comment =~ $clean_summary ]] &&
            [ "$(cases_in "$comment")" -eq "$(cases_in "$summary")" ] ||
            fail "the README says the suite ends with '$comment'; it printed '$summary'"
    fi
done

step "rtctl run on the poll reactor"
cat >"$work/timers.rts" <<'SCRIPT'
spawn slow {
    sleep 80ms
    print "slow: done"
}
spawn fast {
    repeat 3 {
        sleep 10ms
        print "fast: tick"
    }
}
join fast
join slow
print "all joined"
SCRIPT
start=$(date +%s%N)
"$rtctl" run "$work/timers.rts" --config "$example/poll.toml" >"$work/run.out" 2>"$work/run.err" ||
    { cat "$work/run.out" "$work/run.err"; fail "rtctl run failed"; }
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expected=$'fast: tick\nfast: tick\nfast: tick\nslow: done\nall joined'
[ "$(cat "$work/run.out")" = "$expected" ] ||
    { diff <(echo "$expected") "$work/run.out" || true; fail "rtctl run printed the wrong output"; }
[ ! -s "$work/run.err" ] || { cat "$work/run.err"; fail "rtctl run wrote to stderr"; }
# The sleeps really waited: between timers the worker parks in the poll
# reactor's poll() with the next deadline as its timeout.
[ "$elapsed_ms" -ge 80 ] || fail "the script took $elapsed_ms ms, less than its 80 ms sleep"

step "a plugin author's own test program runs the suite through rtkit::conformance"
mkdir -p "$work/runner"
cat >"$work/runner/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(runner LANGUAGES CXX)
find_package(rtkit CONFIG REQUIRED)
add_executable(runner main.cpp)
target_link_libraries(runner PRIVATE rtkit::conformance)
CMAKE
# conformance/README.md's example, as a program.
cat >"$work/runner/main.cpp" <<'CPP'
#include <iostream>

#include "rtkit/conformance/conformance.hpp"

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    auto r = rtkit::conformance::run_conformance(argv[1]);
    std::cout << rtkit::conformance::format_report(r);
    return r.passed() && r.kind == "reactor" && !r.cases.empty() ? 0 : 1;
}
CPP
build_against_prefix "$work/runner" "$work/runner/build" "$work/runner.log" ||
    { cat "$work/runner.log"; fail "building a program against rtkit::conformance failed"; }
"$work/runner/build/runner" "$plugin" >"$work/runner.out" 2>&1 ||
    { cat "$work/runner.out"; fail "the suite did not pass the example plugin from a program"; }

step "a program that embeds rtkit: rtkit::config, a runtime from TOML, net and a channel"
mkdir -p "$work/embed"
cat >"$work/embed/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(embed LANGUAGES CXX)
find_package(rtkit CONFIG REQUIRED)
add_executable(embed main.cpp)
target_link_libraries(embed PRIVATE rtkit::config)
CMAKE
# The README's embedding example, grown: everything from <rtkit/rtkit.hpp>,
# the runtime from <rtkit/config/make_runtime.hpp>.
cat >"$work/embed/main.cpp" <<'CPP'
#include <rtkit/config/make_runtime.hpp>
#include <rtkit/rtkit.hpp>

#include <chrono>
#include <cstring>
#include <iostream>
#include <string>

using namespace std::chrono_literals;

// Echoes what one client sends, then says on the channel how many bytes.
rtkit::task<void> echo_once(rtkit::net::tcp_listener& listener,
                            rtkit::sync::channel_sender<std::size_t> done) {
    rtkit::net::tcp_stream s = co_await listener.accept();
    char buffer[64];
    const std::size_t n = co_await s.read(buffer, sizeof buffer).with_deadline(rtkit::now() + 5s);
    co_await s.write_all(buffer, n);
    co_await done.send(n);
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const auto environment = argc > 2 && std::strcmp(argv[2], "--environment") == 0
                                 ? rtkit::config::environment_layer::apply
                                 : rtkit::config::environment_layer::ignore;
    try {
        rtkit::runtime rt = rtkit::config::make_runtime(argv[1], environment);
        const std::size_t echoed = rt.block_on([]() -> rtkit::task<std::size_t> {
            auto listener = rtkit::net::tcp_listener::bind(rtkit::net::socket_address::loopback(0));
            auto [tx, rx] = rtkit::sync::make_channel<std::size_t>(1);
            auto server = rtkit::spawn(echo_once(listener, std::move(tx)));
            auto client = co_await rtkit::net::tcp_stream::connect(
                rtkit::net::socket_address::loopback(listener.local_address().port()), 2s);
            co_await client.write_all(std::string("ping\n"));
            char back[5];
            co_await client.read_exact(back, sizeof back);
            const std::optional<std::size_t> said = co_await rx.recv();
            (co_await std::move(server)).value();
            co_return std::string(back, sizeof back) == "ping\n" && said ? *said : 0;
        }());
        std::cout << rt.description().reactor << ": echoed " << echoed << " bytes\n";
        return echoed == 5 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "embed: " << e.what() << '\n';
        return 3;
    }
}
CPP
build_against_prefix "$work/embed" "$work/embed/build" "$work/embed.log" ||
    { cat "$work/embed.log"; fail "building a program against rtkit::config failed"; }
printf '[reactor]\nplugin = "epoll"\nstrict = true\n' >"$work/embed/runtime.toml"
"$work/embed/build/embed" "$work/embed/runtime.toml" >"$work/embed.out" 2>&1 ||
    { cat "$work/embed.out"; fail "the embedding program did not echo over TCP"; }
grep -q "^epoll .*: echoed 5 bytes$" "$work/embed.out" ||
    { cat "$work/embed.out"; fail "the embedding program did not run on the file's reactor"; }
# The RTKIT_* layer is opt-in: a program that did not ask ignores it.
RTKIT_REACTOR_PLUGIN=nosuch "$work/embed/build/embed" "$work/embed/runtime.toml" \
    >"$work/embed-env.out" 2>&1 ||
    { cat "$work/embed-env.out"; fail "an RTKIT_* variable changed a program that did not ask"; }
status=0
RTKIT_REACTOR_PLUGIN=nosuch "$work/embed/build/embed" "$work/embed/runtime.toml" --environment \
    >"$work/embed-env.out" 2>&1 || status=$?
[ "$status" -eq 3 ] && grep -q "environment variable RTKIT_REACTOR_PLUGIN: error: unknown reactor plugin 'nosuch'" "$work/embed-env.out" ||
    { cat "$work/embed-env.out"; fail "environment_layer::apply did not read RTKIT_REACTOR_PLUGIN"; }

step "the installed rtkit-mini-redis starts on the installed plugins"
"$prefix/bin/rtkit-mini-redis" --port 0 --set reactor.strict=true >"$work/mini_redis.out" 2>&1 &
server=$!
# Waits for the server's first line, or for it to end; at most 60 s.
for _ in $(seq 600); do
    [ -s "$work/mini_redis.out" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
# SIGKILL: the server stops gracefully on SIGTERM, but under ThreadSanitizer a
# signal from another process waits for its thread to enter an intercepted
# call, which a server idle in its poller never does.
kill -KILL "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
ready=$(head -n 1 "$work/mini_redis.out")
[[ "$ready" == "rtkit-mini-redis: ready to accept connections on 127.0.0.1:"*" (epoll, current_thread)" ]] ||
    { cat "$work/mini_redis.out"; fail "the installed rtkit-mini-redis did not start"; }

echo "package test: ok (the script ran in $elapsed_ms ms)"
