#!/usr/bin/env bash
# The installed rtkit package, end to end, used the way a third party uses it:
#   1. cmake --install this build tree into a temporary prefix, and check the
#      installed rtctl finds the installed kernel and built-in plugins;
#   2. build examples/third_party_reactor against that prefix (its CMakeLists
#      only has find_package(rtkit CONFIG) and rtkit_add_plugin);
#   3. with the installed rtctl: check a TOML file that selects reactor "poll"
#      from the example's build directory, run a timer script on it and compare
#      its output, and run the reactor conformance suite on the built file;
#   4. build and run a program that embeds rtkit through rtkit::kernel.
#
# Usage: package_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR CXX BUILD_TYPE
#                        CXX_FLAGS MODULE_LINKER_FLAGS LIBDIR
set -euo pipefail

if [ $# -ne 9 ]; then
    echo "usage: $0 BUILD_DIR SOURCE_DIR CMAKE GENERATOR CXX BUILD_TYPE CXX_FLAGS" \
        "MODULE_LINKER_FLAGS LIBDIR" >&2
    exit 2
fi
build_dir=$1 source_dir=$2 cmake=$3 generator=$4 cxx=$5 build_type=$6
cxx_flags=$7 module_linker_flags=$8 libdir=$9

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
for file in bin/rtctl "$libdir/librtkit_kernel.so" "$libdir/rtkit/plugins/rtkit_reactor_epoll.so" \
    "$libdir/rtkit/plugins/rtkit_timer_wheel.so" "$libdir/rtkit/plugins/rtkit_lanes_three_lane.so" \
    "$libdir/cmake/rtkit/rtkitConfig.cmake" "$libdir/cmake/rtkit/rtkitConfigVersion.cmake" \
    "$libdir/cmake/rtkit/rtkitTargets.cmake" "$libdir/cmake/rtkit/RtkitPlugin.cmake" \
    include/rtkit/plugin.hpp include/rtkit/reactor.hpp; do
    [ -e "$prefix/$file" ] || fail "the install has no $file"
done

step "the installed rtctl uses the installed kernel and its built-in plugins"
"$rtctl" plugins list >"$work/list.out" 2>&1 || { cat "$work/list.out"; fail "rtctl plugins list"; }
# The built-in directory is found beside the kernel library that was loaded:
# the build tree's would mean the install kept a build-tree RPATH.
grep -qx "search path (in order):" "$work/list.out" || { cat "$work/list.out"; fail "no search path"; }
grep -A1 -x "search path (in order):" "$work/list.out" | grep -qx "  $plugin_dir" ||
    { cat "$work/list.out"; fail "the built-in directory is not $plugin_dir"; }
grep -q "^epoll .*$plugin_dir/rtkit_reactor_epoll.so" "$work/list.out" ||
    { cat "$work/list.out"; fail "the installed epoll plugin is not listed"; }

step "build examples/third_party_reactor against $prefix"
# -Werror keeps the example warning-free; the build's own flags carry its sanitizer.
"$cmake" -S "$source_dir/examples/third_party_reactor" -B "$work/build" -G "$generator" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$build_type" \
    -DCMAKE_CXX_FLAGS="$cxx_flags -Wall -Wextra -Wpedantic -Werror" \
    -DCMAKE_MODULE_LINKER_FLAGS="$module_linker_flags" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configuring the example failed"; }
grep -qx "rtkit_DIR:PATH=$prefix/$libdir/cmake/rtkit" "$work/build/CMakeCache.txt" ||
    fail "find_package(rtkit) did not use the package in $prefix: $(grep rtkit_DIR "$work/build/CMakeCache.txt")"
"$cmake" --build "$work/build" --parallel 2 >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; fail "building the example failed"; }
plugin=$work/build/rtkit_reactor_poll.so
[ -f "$plugin" ] || fail "the example built no $plugin"

step "a configuration that selects reactor \"poll\" from the example's build directory"
cat >"$work/poll.toml" <<'EOF'
[plugins]
search_path = ["build"]  # relative to this file: the example's build directory

[reactor]
plugin = "poll"
strict = true            # no fallback: the script runs on poll or not at all
EOF
out=$("$rtctl" config check "$work/poll.toml" 2>&1) || fail "rtctl config check: $out"
[ "$out" = "$work/poll.toml: ok" ] || fail "rtctl config check printed: $out"
"$rtctl" plugins --config "$work/poll.toml" info poll >"$work/info.out" 2>&1 ||
    { cat "$work/info.out"; fail "rtctl plugins info poll"; }
grep -qx "kind: *reactor" "$work/info.out" && grep -qx "file: *$plugin" "$work/info.out" ||
    { cat "$work/info.out"; fail "rtctl plugins info poll does not show the example's file"; }

step "rtctl run on the poll reactor"
cat >"$work/timers.rts" <<'EOF'
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
EOF
start=$(date +%s%N)
"$rtctl" run "$work/timers.rts" --config "$work/poll.toml" >"$work/run.out" 2>"$work/run.err" ||
    { cat "$work/run.out" "$work/run.err"; fail "rtctl run failed"; }
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expected=$'fast: tick\nfast: tick\nfast: tick\nslow: done\nall joined'
[ "$(cat "$work/run.out")" = "$expected" ] ||
    { diff <(echo "$expected") "$work/run.out" || true; fail "rtctl run printed the wrong output"; }
[ ! -s "$work/run.err" ] || { cat "$work/run.err"; fail "rtctl run wrote to stderr"; }
# The sleeps really waited: between timers the worker parks in the poll
# reactor's poll() with the next deadline as its timeout.
[ "$elapsed_ms" -ge 80 ] || fail "the script took $elapsed_ms ms, less than its 80 ms sleep"

step "rtctl conformance $plugin"
"$rtctl" conformance "$plugin" >"$work/conformance.out" 2>&1 ||
    { cat "$work/conformance.out"; fail "rtctl conformance failed"; }
cat "$work/conformance.out"
grep -q "^conformance of reactor 'poll' ($plugin)" "$work/conformance.out" ||
    fail "the conformance report is not about the poll reactor"
summary=$(tail -n 1 "$work/conformance.out")
[[ $summary =~ ^\ \ ([0-9]+)\ passed,\ 0\ failed ]] && [ "${BASH_REMATCH[1]}" -ge 11 ] ||
    fail "expected at least 11 passed cases and none failed: $summary"

step "a program that embeds rtkit links rtkit::kernel from $prefix"
mkdir -p "$work/embed"
cat >"$work/embed/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(embed LANGUAGES CXX)
find_package(rtkit CONFIG REQUIRED)
add_executable(embed main.cpp)
target_link_libraries(embed PRIVATE rtkit::kernel)
EOF
# The README's embedding example: the default plugins, found beside the installed kernel.
cat >"$work/embed/main.cpp" <<'EOF'
#include <rtkit/rtkit.hpp>

rtkit::task<int> child(int i) {
    co_await rtkit::sleep(std::chrono::milliseconds(10));
    co_return i;
}

int main() {
    rtkit::runtime rt;
    int sum = rt.block_on([]() -> rtkit::task<int> {
        auto a = rtkit::spawn(child(1));
        auto b = rtkit::spawn(child(2));
        co_return (co_await std::move(a)).value() + (co_await std::move(b)).value();
    }());
    return sum == 3 ? 0 : 1;
}
EOF
"$cmake" -S "$work/embed" -B "$work/embed/build" -G "$generator" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$build_type" \
    -DCMAKE_CXX_FLAGS="$cxx_flags" >"$work/embed.log" 2>&1 &&
    "$cmake" --build "$work/embed/build" >>"$work/embed.log" 2>&1 ||
    { cat "$work/embed.log"; fail "building a program against rtkit::kernel failed"; }
"$work/embed/build/embed" || fail "the embedding program did not compute 1 + 2 = 3"

echo "package test: ok (the script ran in $elapsed_ms ms)"
