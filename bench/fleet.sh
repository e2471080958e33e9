#!/usr/bin/env bash
# A class run: one step for classes of 1, 10, 50 and 200 learners, each learner with their own
# served cluster (one `labcheck serve --latency 50` each) and their own work dir.
#
#   bench/fleet.sh [RUNS]        (default RUNS=7; SIZES="1 10 50 200", LATENCY=50,
#                                 LABCHECK=target/release/labcheck, BENCH_DIR=target/bench)
#
# Run bench/run.sh first (it builds the release binary and the lab in BENCH_DIR). For each size it
# runs `labcheck module-10 step-4 --kubeconfigs DIR --work-dirs 'DIR/{learner}' --no-wait` RUNS
# times under GNU time and prints the median wall time, its ratio to one learner, labcheck's CPU
# (user + system) per learner, the served clusters' CPU per learner counted apart (the
# `labcheck serve` processes answering, read from /proc before and after), and the peak RSS.
# Every run must report every learner passing (exit 0): a fast wrong answer is no answer. A
# benchmark, not a test: it prints numbers.
set -euo pipefail
RUNS=${1:-7}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_DIR:-$ROOT/target/bench}
LABCHECK=${LABCHECK:-$ROOT/target/release/labcheck}
SIZES=${SIZES:-"1 10 50 200"}
LATENCY=${LATENCY:-50}
[ -x "$LABCHECK" ] && [ -f "$OUT/step-4.yaml" ] || { echo "bench/fleet.sh: run bench/run.sh first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/fleet.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/fleet.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }
"$LABCHECK" --help | grep -q -- '--kubeconfigs' || {
  echo "bench/fleet.sh: this labcheck has no class mode (--kubeconfigs DIR)" >&2; exit 2; }

max=0; for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait' EXIT
rm -rf "$OUT/fleet" && mkdir -p "$OUT/fleet/kc" "$OUT/fleet/work"
for i in $(seq "$max"); do
  "$LABCHECK" serve "$OUT/step-4.yaml" --latency "$LATENCY" --write-kubeconfig "$OUT/fleet/kc/learner-$i.yaml" >/dev/null 2>&1 &
  PIDS+=($!)
  # Every learner's work dir is a copy of its own (the same lab), not a link to one folder.
  cp -r "$OUT/step-4/work" "$OUT/fleet/work/learner-$i"
done
for _ in $(seq 300); do [ "$(ls "$OUT/fleet/kc" | wc -l)" = "$max" ] && break; sleep 0.1; done
sleep 1

# servers_ns: the CPU every serve process has used so far, in nanoseconds: each thread's time on
# a CPU from /proc/PID/task/*/schedstat (exact; /proc/PID/stat counts whole clock ticks, and a
# server answering a few requests a run never reaches one)
servers_ns() {
  local pid
  for pid in "${PIDS[@]}"; do cat /proc/"$pid"/task/*/schedstat 2>/dev/null || true; done |
    awk '{ total += $1 } END { printf "%.0f\n", total }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %10s %8s %14s %16s %10s\n' learners median "x one" "cpu/learner" "servers/learner" "peak RSS"
one=
for n in $SIZES; do
  rm -rf "$OUT/fleet/kc-$n" && mkdir "$OUT/fleet/kc-$n"
  for i in $(seq "$n"); do cp "$OUT/fleet/kc/learner-$i.yaml" "$OUT/fleet/kc-$n/"; done
  : >"$OUT/fleet/ms"; : >"$OUT/fleet/cpu"; : >"$OUT/fleet/rss"
  s0=$(servers_ns)
  for _ in $(seq "$RUNS"); do
    t0=$EPOCHREALTIME rc=0
    /usr/bin/time -f '%U %S %M' -o "$OUT/fleet/time" "$LABCHECK" module-10 step-4 --kubeconfigs "$OUT/fleet/kc-$n" \
      --work-dirs "$OUT/fleet/work/{learner}" --no-wait --color never >"$OUT/fleet/out" 2>&1 || rc=$?
    t1=$EPOCHREALTIME
    [ "$rc" = 0 ] || { echo "bench/fleet.sh: a class of $n did not pass (exit $rc):" >&2; tail -20 "$OUT/fleet/out" >&2; exit 1; }
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$OUT/fleet/ms"
    read -r user sys rss <"$OUT/fleet/time"
    awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { printf "%.2f\n", (u + s) * 1000 / n }' >>"$OUT/fleet/cpu"
    echo "$rss" >>"$OUT/fleet/rss"
  done
  s1=$(servers_ns)
  ms=$(median <"$OUT/fleet/ms"); cpu=$(median <"$OUT/fleet/cpu"); rss=$(sort -g "$OUT/fleet/rss" | tail -1)
  # The servers' CPU over every run of this size, per run and learner (a mean over the runs).
  srv=$(awk -v a="$s0" -v b="$s1" -v r="$RUNS" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / 1e6 / r / n }')
  [ -n "$one" ] || one=$ms
  printf '%-8s %7s ms %7.2fx %11s ms %13s ms %7s kB\n' "$n" "$ms" "$(awk -v a="$ms" -v b="$one" 'BEGIN { print a / b }')" "$cpu" "$srv" "$rss"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
