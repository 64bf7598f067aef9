#!/usr/bin/env bash
# Compares rtkit with the tokio peer on this machine, in alternating passes, and
# prints every pass and the median of the per-pass ratios to tokio. Ratios of
# neighbouring runs are steadier here than ratios of medians: the same server
# swings by 1.5x from one minute to the next on this VM.
#
#   bench/compare.sh W1 W4 W7        # PASSES=7 for more passes (default 5)
#
# W1 W3 W4 W5 W8 W9 compare ns per op. W7 compares requests/s and the server's
# CPU time (user + system) per request, for rtkit on epoll and on io_uring,
# with the raw epoll and io_uring servers of ../shared/peers as the floor.
# Build the peers first (about a minute):
#   ONLY="tokio epoll io_uring" WORKLOADS=W1 RUNS=1 bash ../shared/peers/run.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RTBENCH="${RTBENCH:-$ROOT/build/release/bin/rtbench}"
PEERS="${PEERS_BIN:-${PEERS_BUILD_DIR:-/tmp/rtkit-peers}/bin}"
PASSES="${PASSES:-5}"
PORT="${PORT:-24000}"
HZ="$(getconf CLK_TCK)"

for tool in "$RTBENCH" "$PEERS/tokio_peer"; do
  [[ -x "$tool" ]] || { echo "compare.sh: $tool is missing (see the header of $0)" >&2; exit 2; }
done
[[ $# -gt 0 ]] || { echo "usage: $0 W1|W3|W4|W5|W7|W8|W9 ..." >&2; exit 2; }

peer_name() {
  case "$1" in
    W1) echo spawn_join_st ;; W3) echo yield_storm ;; W4) echo ping_pong ;;
    W5) echo timeout_ready ;; W8) echo block_on_ready ;; W9) echo timeout_pending ;;
    *) echo "compare.sh: no tokio peer for $1" >&2; exit 2 ;;
  esac
}

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }
# The median of a space-separated list of numbers.
median() {
  tr ' ' '\n' <<<"$1" | grep . | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# One W7 run of server "$@" (the port is appended): prints "req/s cpu-us/req".
echo_run() {
  PORT=$((PORT + 1))
  "$@" "$PORT" >/dev/null 2>&1 &
  local pid=$! line stat
  # Wait until it listens (a connection it sees closed at once), 5 s at most.
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.1
  done
  line="$("$PEERS/echo_client" "$PORT" 64 20000 compare | grep '^workload=')"
  read -r -a stat <"/proc/$pid/stat"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  awk -v rps="$(field req_per_s <<<"$line")" -v n="$(field n <<<"$line")" \
      -v u="${stat[13]}" -v s="${stat[14]}" -v hz="$HZ" \
      'BEGIN { printf "%s %.3f\n", rps, (u + s) / hz * 1e6 / n }'
}

compare_w7() {
  local -A rps_ratio cpu_ratio
  local servers=(rtkit_epoll rtkit_uring raw_epoll raw_uring)
  for pass in $(seq "$PASSES"); do
    read -r t_rps t_cpu < <(echo_run "$PEERS/tokio_peer" tcp_echo_server)
    echo "W7 pass $pass tokio: $t_rps req/s, $t_cpu us/req"
    for s in "${servers[@]}"; do
      case "$s" in
        rtkit_epoll) cmd=("$RTBENCH" W7 --set reactor.plugin=epoll --port) ;;
        rtkit_uring) cmd=("$RTBENCH" W7 --set reactor.plugin=uring --port) ;;
        raw_epoll) cmd=("$PEERS/epoll_echo") ;;
        raw_uring) cmd=("$PEERS/uring_echo") ;;
      esac
      [[ -x "${cmd[0]}" ]] || continue
      read -r rps cpu < <(echo_run "${cmd[@]}")
      echo "W7 pass $pass $s: $rps req/s, $cpu us/req"
      rps_ratio[$s]+="$(ratio "$rps" "$t_rps") "
      cpu_ratio[$s]+="$(ratio "$cpu" "$t_cpu") "
    done
  done
  for s in "${servers[@]}"; do
    [[ -n "${rps_ratio[$s]:-}" ]] || continue
    printf 'W7 %s: %.3fx tokio req/s at %.3fx tokio CPU/req (medians of %s per-pass ratios)\n' \
      "$s" "$(median "${rps_ratio[$s]}")" "$(median "${cpu_ratio[$s]}")" "$PASSES"
  done
}

compare_task_workload() {
  local w="$1" name ratios="" r t
  name="$(peer_name "$w")"
  for pass in $(seq "$PASSES"); do
    r="$("$RTBENCH" "$w" | field ns_per_op)"
    t="$("$PEERS/tokio_peer" "$name" | field ns_per_op)"
    echo "$w pass $pass: rtkit $r ns/op, tokio $t ns/op"
    ratios+="$(ratio "$r" "$t") "
  done
  printf '%s: %.3fx tokio ns/op (median of %s per-pass ratios)\n' \
    "$w" "$(median "$ratios")" "$PASSES"
}

for w in "$@"; do
  if [[ "$w" == W7 ]]; then compare_w7; else compare_task_workload "$w"; fi
done
