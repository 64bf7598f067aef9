#!/usr/bin/env bash
# rtkit-mini-redis against redis-server itself, both driven by redis-benchmark,
# in alternating passes; prints every run and the median of the per-pass
# ratios to redis-server.
#
#   bench/redis.sh                  # PASSES=5; N1=100000 requests at -P 1, N16=1000000 at -P 16
#   SERVERS="redis rtkit_epoll" bench/redis.sh
#   DEPTHS="1 4 16" TESTS="set get" bench/redis.sh   # other depths (N16 requests), fewer tests
#
# Servers: redis (Debian's redis-server, persistence off: --save '' --appendonly
# no), and rtkit-mini-redis on epoll, on io_uring (both current_thread, whose
# polling time before sleeping adapts to the commands per read: mini-redis's
# --adaptive-poll) and on epoll with the multi_thread flavor and 2 workers
# (rtkit_mt2); and on epoll polling the reactor for a fixed POLL_US
# microseconds (default 50) before it sleeps (rtkit_epoll_poll:
# runtime.poll_before_park_us; rtkit_epoll_poll:N polls N), not polling
# (rtkit_epoll_nopoll: --adaptive-poll no), or adapting along POLL_CURVE
# (rtkit_epoll_curve: --adaptive-poll-curve, default 2,10,8;
# rtkit_epoll_curve:S,L,N follows S,L,N; rtkit_uring_curve[:S,L,N] the same
# on io_uring). Each pass
# starts every server afresh and then, for each pipeline depth (-P 1, -P 16)
# and test (ping_inline, ping_mbulk, set, get: -t ping,set,get split so that
# each has its own CPU figure), runs `redis-benchmark -c 50` once against each
# server, the order rotating from run to run, so neighbouring runs compare
# the servers a few seconds apart. The idle servers wait in their pollers.
#
# Per run: requests/s, p50 and p99 latency (redis-benchmark's), and the
# server's CPU time (user + system, from /proc/PID/stat before and after) per
# request; each as a ratio to redis-server's in the same pass. As in
# compare.sh, with PIN=1 (the default where there are two CPUs or more) the
# servers run on the last CPU and redis-benchmark on CPU 0; the multi_thread
# server's two workers then share that one CPU. PIN=0 runs them unpinned.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MINI_REDIS="${MINI_REDIS:-$ROOT/build/release/bin/rtkit-mini-redis}"
RTBENCH="${RTBENCH:-$(dirname "$MINI_REDIS")/rtbench}"
REDIS_SERVER="${REDIS_SERVER:-redis-server}"
REDIS_BENCHMARK="${REDIS_BENCHMARK:-redis-benchmark}"
PASSES="${PASSES:-5}"
N1="${N1:-100000}"
N16="${N16:-1000000}"
CLIENTS="${CLIENTS:-50}"
SERVERS="${SERVERS:-redis rtkit_epoll rtkit_uring rtkit_mt2}"
TESTS="${TESTS:-ping_inline ping_mbulk set get}"
DEPTHS="${DEPTHS:-1 16}"
HZ="$(getconf CLK_TCK)"
CPUS="$(nproc)"
PIN="${PIN:-$((CPUS > 1))}"
if [[ "$PIN" == 1 ]]; then
  server_cpu=(taskset -c "$((CPUS - 1))") client_cpu=(taskset -c 0)
  pinning="yes (servers on CPU $((CPUS - 1)), redis-benchmark on CPU 0)"
else
  server_cpu=() client_cpu=() pinning=no
fi

for tool in "$MINI_REDIS" "$(command -v "$REDIS_SERVER" || true)" "$(command -v "$REDIS_BENCHMARK" || true)"; do
  [[ -x "$tool" ]] || { echo "redis.sh: missing ${tool:-a redis program}: build the project, apt-get install redis-server redis-tools" >&2; exit 2; }
done
[[ " $SERVERS " == *" redis "* ]] || { echo "redis.sh: SERVERS must include redis (the reference)" >&2; exit 2; }

# A loopback port nothing listens on (bash's /dev/tcp fails to connect there),
# below the ephemeral range, where redis-benchmark's own connections could
# hold it by the time the server binds.
free_port() {
  local port low
  low="$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)"
  while true; do
    port=$((10000 + RANDOM % (low - 10000)))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}

# Sets cmd to the command line of server "$1" on port "$2".
server_command() {
  case "$1" in
    redis) cmd=("$REDIS_SERVER" --port "$2" --save '' --appendonly no --bind 127.0.0.1) ;;
    rtkit_epoll) cmd=("$MINI_REDIS" --port "$2" --set reactor.plugin=epoll --set reactor.strict=true) ;;
    rtkit_uring) cmd=("$MINI_REDIS" --port "$2" --set reactor.plugin=uring --set reactor.strict=true) ;;
    rtkit_epoll_poll | rtkit_epoll_poll:*)
      local us="${1#rtkit_epoll_poll:}"
      [[ "$us" != "$1" ]] || us="${POLL_US:-50}"
      cmd=("$MINI_REDIS" --port "$2" --set reactor.plugin=epoll --set reactor.strict=true
           --set "runtime.poll_before_park_us=$us")
      ;;
    rtkit_epoll_nopoll)
      cmd=("$MINI_REDIS" --port "$2" --set reactor.plugin=epoll --set reactor.strict=true
           --adaptive-poll no)
      ;;
    rtkit_epoll_curve | rtkit_epoll_curve:* | rtkit_uring_curve | rtkit_uring_curve:*)
      local kind="${1%%:*}" curve="${1#*:}"
      [[ "$curve" != "$1" ]] || curve="${POLL_CURVE:-2,10,8}"
      local reactor="${kind#rtkit_}"
      cmd=("$MINI_REDIS" --port "$2" --set "reactor.plugin=${reactor%_curve}" --set reactor.strict=true
           --adaptive-poll-curve "$curve")
      ;;
    rtkit_mt2)
      cmd=("$MINI_REDIS" --port "$2" --set reactor.plugin=epoll --set runtime.flavor=multi_thread
           --set runtime.workers=2)
      ;;
    *) echo "redis.sh: unknown server '$1' (known: redis rtkit_epoll rtkit_uring rtkit_mt2 rtkit_epoll_poll[:N] rtkit_epoll_nopoll rtkit_epoll_curve[:S,L,N] rtkit_uring_curve[:S,L,N])" >&2; exit 2 ;;
  esac
}

declare -A pid port log
start_servers() {
  local s cmd
  for s in $SERVERS; do
    port[$s]="$(free_port)"
    server_command "$s" "${port[$s]}"
    log[$s]="$(mktemp)"
    "${server_cpu[@]}" "${cmd[@]}" >"${log[$s]}" 2>&1 &
    pid[$s]=$!
  done
  for s in $SERVERS; do
    for _ in $(seq 100); do
      redis-cli -p "${port[$s]}" PING >/dev/null 2>&1 && continue 2
      kill -0 "${pid[$s]}" 2>/dev/null || break
      sleep 0.05
    done
    echo "redis.sh: $s did not start: $(cat "${log[$s]}")" >&2
    exit 1
  done
}
stop_servers() {
  local s
  for s in "${!pid[@]}"; do
    kill "${pid[$s]}" 2>/dev/null || true
    wait "${pid[$s]}" 2>/dev/null || true
    rm -f "${log[$s]}"
  done
  pid=() log=()
}
trap stop_servers EXIT

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# One redis-benchmark run of test $2 at pipeline depth $3 against server $1:
# prints "rps p50_ms p99_ms cpu_us_per_request".
bench_run() {
  local s="$1" test="$2" depth="$3" n before after line
  n=$([[ "$depth" == 1 ]] && echo "$N1" || echo "$N16")
  before="$(cpu_ticks "${pid[$s]}")"
  line="$("${client_cpu[@]}" "$REDIS_BENCHMARK" -p "${port[$s]}" -c "$CLIENTS" -n "$n" -P "$depth" \
            -t "$test" --csv | grep -v '^"test"')" ||
    { echo "redis.sh: redis-benchmark -t $test -P $depth against $s failed" >&2; exit 1; }
  after="$(cpu_ticks "${pid[$s]}")"
  # "GET","176273.58","2.479","0.1","2.4","3.1","3.9","5.0": rps, avg, min, p50, p95, p99, max
  awk -F'"' -v n="$n" -v t="$((after - before))" -v hz="$HZ" \
    '{ printf "%s %s %s %.3f\n", $4, $10, $14, t / hz * 1e6 / n }' <<<"$line"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b == 0 ? 0 : a / b) }'; }
# "M (A-B)": the median of a list of numbers and its middle half (nearest rank).
spread() {
  tr ' ' '\n' <<<"$1" | grep . | sort -g |
    awk -v fmt="$2" '{ v[NR] = $1 } END {
      q = int((NR + 3) / 4)
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf fmt " (" fmt "-" fmt ")", m, v[q], v[NR + 1 - q]
    }'
}
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%s", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# What a system call and a clock read cost on this host now: runs on
# different days compare only where these agree (bench/README.md).
host_line() {
  if [[ -x "$RTBENCH" ]]; then echo "redis.sh: $("$RTBENCH" host)"; fi
}

echo "redis.sh: $(uptime)"
host_line
echo "redis.sh: $("$REDIS_SERVER" --version)"
echo "redis.sh: pinned: $pinning; $PASSES passes; -c $CLIENTS; -n $N1 at -P 1, $N16 at the other depths ($DEPTHS)"
declare -A abs rel
read -r -a servers <<<"$SERVERS"
run_index=0
for pass in $(seq "$PASSES"); do
  start_servers
  for depth in $DEPTHS; do
    for test in $TESTS; do
      declare -A got=()
      for i in "${!servers[@]}"; do
        s="${servers[(i + run_index) % ${#servers[@]}]}"
        got[$s]="$(bench_run "$s" "$test" "$depth")"
        read -r rps p50 p99 cpu <<<"${got[$s]}"
        printf 'pass %s -P %-2s %-11s %-18s %10s req/s  p50 %s ms  p99 %s ms  %s us/req\n' \
          "$pass" "$depth" "$test" "$s" "$rps" "$p50" "$p99" "$cpu"
      done
      run_index=$((run_index + 1))
      read -r r_rps r_p50 r_p99 r_cpu <<<"${got[redis]}"
      for s in "${servers[@]}"; do
        read -r rps p50 p99 cpu <<<"${got[$s]}"
        key="$s $depth $test"
        abs[$key rps]+="$rps " abs[$key p50]+="$p50 " abs[$key p99]+="$p99 " abs[$key cpu]+="$cpu "
        rel[$key rps]+="$(ratio "$rps" "$r_rps") " rel[$key cpu]+="$(ratio "$cpu" "$r_cpu") "
        rel[$key p50]+="$(ratio "$p50" "$r_p50") " rel[$key p99]+="$(ratio "$p99" "$r_p99") "
      done
    done
  done
  stop_servers
done
echo "redis.sh: $(uptime)"
host_line

echo
echo "Medians of $PASSES passes (absolute), and of the per-pass ratios to redis-server (middle half):"
printf '%-18s %-4s %-11s | %10s %8s %8s %8s | %-20s %-20s %-20s %-20s\n' \
  server depth test "req/s" "p50 ms" "p99 ms" "us/req" "x redis req/s" "x redis CPU/req" \
  "x redis p50" "x redis p99"
for depth in $DEPTHS; do
  for test in $TESTS; do
    for s in "${servers[@]}"; do
      key="$s $depth $test"
      if [[ "$s" == redis ]]; then
        ratios=("" "" "" "")
      else
        ratios=("$(spread "${rel[$key rps]}" %.2f)" "$(spread "${rel[$key cpu]}" %.2f)"
                "$(spread "${rel[$key p50]}" %.2f)" "$(spread "${rel[$key p99]}" %.2f)")
      fi
      printf '%-18s -P%-2s %-11s | %10s %8s %8s %8s | %-20s %-20s %-20s %-20s\n' \
        "$s" "$depth" "$test" "$(median "${abs[$key rps]}")" "$(median "${abs[$key p50]}")" \
        "$(median "${abs[$key p99]}")" "$(median "${abs[$key cpu]}")" "${ratios[@]}"
    done
  done
done
