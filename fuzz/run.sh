#!/usr/bin/env bash
# fuzz/run.sh SECONDS [HARNESS...]: runs each harness built by the fuzz preset
# (all of them, or those named) for SECONDS over its seed corpus, then prints
# one line per harness: executions, time and findings. Exits 1 when a harness
# found something; its input is kept in build/fuzz/findings/HARNESS/, and the
# log beside it says what broke. New inputs that reach new code accumulate in
# build/fuzz/corpus/HARNESS/ (not in the tree) and are replayed by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=build/fuzz
manifest=$build/fuzz/fuzzers.txt
[ -f "$manifest" ] || { echo "fuzz/run.sh: $manifest is missing: build the fuzz preset first (make fuzz)" >&2; exit 2; }

summary=()
problems=()
while read -r name executable dictionary seeds; do
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  work=$build/corpus/$name
  findings=$build/findings/$name
  log=$build/findings/$name.log
  mkdir -p "$work" "$findings"
  options=(-max_total_time="$seconds" -timeout=10 -print_final_stats=1 -artifact_prefix="$findings/")
  [ "$dictionary" = - ] || options+=(-dict="$dictionary")
  before=$(ls "$findings" | wc -l)
  echo "fuzz: $name for ${seconds}s ..."
  start=$(date +%s)
  # shellcheck disable=SC2086  # the seed directories are one word each
  if "$executable" "${options[@]}" "$work" $seeds >"$log" 2>&1; then status=ok; else status=failed; fi
  elapsed=$(( $(date +%s) - start ))
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=$(( $(ls "$findings" | wc -l) - before ))
  if [ "$status" = failed ] && [ "$found" -eq 0 ]; then found=1; fi  # e.g. a crash at start-up
  if [ "$found" -gt 0 ]; then
    problems+=("fuzz: $name found a problem; its log is $log:"
               "$(grep -E 'ERROR|broken rule|detail|SUMMARY|Test unit written' "$log" | head -8)")
  fi
  summary+=("$(printf '%-20s %12s %8ss %9s' "$name" "${executions:-0}" "$elapsed" "$found")")
done <"$manifest"

printf '%-20s %12s %9s %9s\n' harness executions time findings
printf '%s\n' "${summary[@]}"
[ ${#problems[@]} -eq 0 ] || { printf '%s\n' "${problems[@]}" >&2; exit 1; }
