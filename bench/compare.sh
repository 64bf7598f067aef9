#!/usr/bin/env bash
# Compares rtkit with the tokio peer on this machine, in alternating passes, and
# prints every pass and the median of the per-pass ratios to tokio. Ratios of
# neighbouring runs are steadier here than ratios of medians: the same server
# swings by 1.5x from one minute to the next on this VM.
#
#   bench/compare.sh W1 W1@mt1 W1@huge W4 W7   # PASSES=7 for more passes (default 5)
#   bench/compare.sh W6@timer.plugin=heap W3@lanes.plugin=lab   # any rtbench --set
#
# W1 W2 W3 W4 W5 W8 W9 compare ns per op. W6 compares wall time per sleep, CPU
# time and lateness p99 (and prints p50 and max). W7 compares requests/s and the server's
# CPU time (user + system) per request, for rtkit on epoll and on io_uring
# (by default, and with single_issuer; both give W7's one-thread server the
# ring of one issuer),
# with the raw epoll and io_uring servers of ../shared/peers as the floor; it
# also prints each rtkit server's CPU per request as a ratio to its floor's in
# the same pass. The order of the six servers rotates from pass to pass, so none
# is always measured first or right after the same neighbour. With PIN=1 (the
# default where there are two CPUs or more) the server runs on the last CPU and
# the client on CPU 0: unpinned, the scheduler moves them between sharing one core
# and using two, and one server's CPU per request then varies by +-20% from
# run to run here; pinned by about +-5% on a quiet host, and by up to +-20% on
# a busy one (2026-12-04). Each median is printed with the middle half of its
# per-pass ratios, so a run shows how much its host swung. PIN=0 runs unpinned.
# Build the peers first (about a minute):
#   ONLY="tokio epoll io_uring" WORKLOADS=W1 RUNS=1 bash ../shared/peers/run.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RTBENCH="${RTBENCH:-$ROOT/build/release/bin/rtbench}"
PEERS="${PEERS_BIN:-${PEERS_BUILD_DIR:-/tmp/rtkit-peers}/bin}"
PASSES="${PASSES:-5}"
PORT="${PORT:-24000}"
HZ="$(getconf CLK_TCK)"
CPUS="$(nproc)"
PIN="${PIN:-$((CPUS > 1))}"
if [[ "$PIN" == 1 ]]; then
  server_cpu=(taskset -c "$((CPUS - 1))") client_cpu=(taskset -c 0)
  pinning="yes (server CPU $((CPUS - 1)), client CPU 0)"
else
  server_cpu=() client_cpu=() pinning=no
fi

for tool in "$RTBENCH" "$PEERS/tokio_peer"; do
  [[ -x "$tool" ]] || { echo "compare.sh: $tool is missing (see the header of $0)" >&2; exit 2; }
done
[[ $# -gt 0 ]] ||
  { echo "usage: $0 W1|W2|W3|W4|W5|W6|W7|W8|W9[@mt1|@huge|@KEY=VALUE]... ..." >&2; exit 2; }

peer_name() {
  case "$1" in
    W1) echo spawn_join_st ;; W2) echo spawn_join_mt ;; W3) echo yield_storm ;; W4) echo ping_pong ;;
    W5) echo timeout_ready ;; W6) echo sleep_storm ;; W8) echo block_on_ready ;;
    W9) echo timeout_pending ;;
    *) echo "compare.sh: no tokio peer for $1" >&2; exit 2 ;;
  esac
}

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }
# "M (middle half A-B)": the median of a space-separated list of per-pass
# ratios, and its lower and upper quartile (nearest rank).
spread() {
  tr ' ' '\n' <<<"$1" | grep . | sort -g |
    awk '{ v[NR] = $1 } END {
      q = int((NR + 3) / 4)
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.3fx (middle half %.3f-%.3f)", m, v[q], v[NR + 1 - q]
    }'
}

# One W7 run of server "$@" on port $1 (appended to the command): prints
# "req/s cpu-us/req", or fails with the server's and the client's messages.
echo_run() {
  local port="$1" log
  shift
  log="$(mktemp)"
  "${server_cpu[@]}" "$@" "$port" >"$log" 2>&1 &
  local pid=$! line stat
  # Wait until it listens (a connection it sees closed at once), 5 s at most.
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  line="$("${client_cpu[@]}" "$PEERS/echo_client" "$port" 64 20000 compare 2>>"$log" |
    grep '^workload=')" || true
  { read -r -a stat <"/proc/$pid/stat"; } 2>/dev/null || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [[ -n "$line" ]] || echo "compare.sh: W7 run of '$*' on port $port failed: $(cat "$log")" >&2
  rm -f "$log"
  [[ -n "$line" ]] || return 1
  awk -v rps="$(field req_per_s <<<"$line")" -v n="$(field n <<<"$line")" \
      -v u="${stat[13]}" -v s="${stat[14]}" -v hz="$HZ" \
      'BEGIN { printf "%s %.3f\n", rps, (u + s) / hz * 1e6 / n }'
}

# Sets cmd to the command line of W7 server "$1", without the port.
w7_server() {
  case "$1" in
    tokio) cmd=("$PEERS/tokio_peer" tcp_echo_server) ;;
    rtkit_epoll) cmd=("$RTBENCH" W7 --set reactor.plugin=epoll --port) ;;
    rtkit_uring) cmd=("$RTBENCH" W7 --set reactor.plugin=uring --port) ;;
    rtkit_uring_si)
      cmd=("$RTBENCH" W7 --set reactor.plugin=uring --set reactor.uring.single_issuer=true --port)
      ;;
    raw_epoll) cmd=("$PEERS/epoll_echo") ;;
    raw_uring) cmd=("$PEERS/uring_echo") ;;
  esac
}

compare_w7() {
  local -A rps_ratio cpu_ratio floor_ratio rps cpu
  local -A floor_of=([rtkit_epoll]=raw_epoll [rtkit_uring]=raw_uring [rtkit_uring_si]=raw_uring)
  local servers=(rtkit_epoll rtkit_uring rtkit_uring_si raw_epoll raw_uring) order=(tokio) s f
  local cmd out
  for s in "${servers[@]}"; do
    w7_server "$s"
    [[ -x "${cmd[0]}" ]] && order+=("$s")
  done
  for pass in $(seq "$PASSES"); do
    for i in "${!order[@]}"; do
      s="${order[(i + pass - 1) % ${#order[@]}]}"
      w7_server "$s"
      # A new port each run: a ring's teardown may hold the last one's listener.
      PORT=$((PORT + 1))
      out="$(echo_run "$PORT" "${cmd[@]}")" || exit 1
      read -r "rps[$s]" "cpu[$s]" <<<"$out"
      echo "W7 pass $pass $s: ${rps[$s]} req/s, ${cpu[$s]} us/req"
    done
    for s in "${order[@]:1}"; do
      rps_ratio[$s]+="$(ratio "${rps[$s]}" "${rps[tokio]}") "
      cpu_ratio[$s]+="$(ratio "${cpu[$s]}" "${cpu[tokio]}") "
      f="${floor_of[$s]:-}"
      [[ -n "$f" && -n "${cpu[$f]:-}" ]] && floor_ratio[$s]+="$(ratio "${cpu[$s]}" "${cpu[$f]}") "
    done
  done
  echo "W7 servers pinned: $pinning"
  for s in "${order[@]:1}"; do
    printf 'W7 %s: %s tokio req/s at %s tokio CPU/req (medians of %s per-pass ratios)\n' \
      "$s" "$(spread "${rps_ratio[$s]}")" "$(spread "${cpu_ratio[$s]}")" "$PASSES"
  done
  for s in "${!floor_ratio[@]}"; do
    printf 'W7 %s: %s CPU/req of %s (medians of %s per-pass ratios)\n' \
      "$s" "$(spread "${floor_ratio[$s]}")" "${floor_of[$s]}" "$PASSES"
  done
}

# The median of a space-separated list of figures.
median() {
  tr ' ' '\n' <<<"$1" | grep . | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Variants after the workload's name, each after an @, run rtkit differently
# against the same tokio figure, to compare it with the default in one run:
# @mt1 on the multi_thread flavor with one worker, @huge with
# runtime.huge_pages = true, @KEY=VALUE with rtbench --set KEY=VALUE
# (W6@timer.plugin=heap, W1@lanes.plugin=fifo). Sets rtbench_sets.
variant_sets() {
  local variant
  rtbench_sets=()
  IFS=@ read -ra variants <<<"${1#*@}"
  [[ "$1" == *@* ]] || return 0
  for variant in "${variants[@]}"; do
    case "$variant" in
      mt1) rtbench_sets+=(--set runtime.flavor=multi_thread --set runtime.workers=1) ;;
      huge) rtbench_sets+=(--set runtime.huge_pages=true) ;;
      *=*) rtbench_sets+=(--set "$variant") ;;
      *) echo "compare.sh: unknown variant @$variant in $1 (known: @mt1 @huge @KEY=VALUE)" >&2
         exit 2 ;;
    esac
  done
}

compare_task_workload() {
  local w="$1" base="${1%%@*}" name ratios="" r t
  variant_sets "$w"
  name="$(peer_name "$base")"
  for pass in $(seq "$PASSES"); do
    r="$("$RTBENCH" "$base" "${rtbench_sets[@]}" | field ns_per_op)"
    t="$("$PEERS/tokio_peer" "$name" | field ns_per_op)"
    echo "$w pass $pass: rtkit $r ns/op, tokio $t ns/op"
    ratios+="$(ratio "$r" "$t") "
  done
  printf '%s: %s tokio ns/op (median of %s per-pass ratios)\n' "$w" "$(spread "$ratios")" "$PASSES"
}

# W6: wall time per sleep, CPU seconds and lateness, rtkit against tokio in
# each pass; the medians of the per-pass ratios, and of each figure.
compare_w6() {
  local w="$1" r t key
  local -A ratios mine theirs
  local keys=(ns_per_op cpu_seconds late_p50_us late_p99_us late_max_us)
  variant_sets "$w"
  for pass in $(seq "$PASSES"); do
    r="$("$RTBENCH" W6 "${rtbench_sets[@]}")"
    t="$("$PEERS/tokio_peer" sleep_storm)"
    echo "$w pass $pass: rtkit $(cut -d' ' -f5- <<<"$r")"
    echo "$w pass $pass: tokio $(cut -d' ' -f5- <<<"$t")"
    for key in "${keys[@]}"; do
      mine[$key]+="$(field "$key" <<<"$r") "
      theirs[$key]+="$(field "$key" <<<"$t") "
      ratios[$key]+="$(ratio "$(field "$key" <<<"$r")" "$(field "$key" <<<"$t")") "
    done
  done
  for key in "${keys[@]}"; do
    printf '%s %s: rtkit %s, tokio %s (medians); %s tokio (median of %s per-pass ratios)\n' \
      "$w" "$key" "$(median "${mine[$key]}")" "$(median "${theirs[$key]}")" \
      "$(spread "${ratios[$key]}")" "$PASSES"
  done
}

# What a system call, a clock read and a cache line between CPUs cost on this
# host now, before and after: runs on different days compare only where these
# agree (bench/README.md).
echo "compare.sh: $(uptime)"
host="$("$RTBENCH" host)"
echo "compare.sh: $host"
syscall_ns="$(field syscall_ns <<<"$host")"
if [[ -n "$syscall_ns" ]] && (( syscall_ns > 500 )); then
  echo "compare.sh: warning: a system call costs over 500 ns here now (page-table isolation?):" \
    "tokio enters the kernel where rtkit does not, so its ratios to tokio read low today"
fi
for w in "$@"; do
  case "${w%%@*}" in
    W7) compare_w7 ;;
    W6) compare_w6 "$w" ;;
    *) compare_task_workload "$w" ;;
  esac
done
echo "compare.sh: $("$RTBENCH" host)"
