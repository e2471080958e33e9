#!/usr/bin/env bash
# The class page for classes of 1, 10, 50 and 200 learners: how long until the page's live part
# shows every learner checked (first render), and how long after one learner's work repo changes
# until the page shows it (an update), both read from the page's own event stream.
#
#   bench/page.sh [RUNS]      (default RUNS=3; SIZES="1 10 50 200", LATENCY=50, PORT=18181,
#                              LABCHECK=target/release/labcheck, BENCH_DIR=target/bench)
#
# Run bench/run.sh first (the release binary and the lab). Each learner has their own served
# cluster (`labcheck serve --latency 50`) and a copy of step 4's work dir, as in bench/fleet.sh.
# Per run: `labcheck class serve module-10 step-4 --kubeconfigs … --work-dirs …` starts, a reader
# of `/events` (curl) connects as soon as the port answers, and the time from launch to the first
# event whose counts say "done: N" is the first render. Then learner 1's helm/dev.yaml gets an
# uncommitted edit (their step no longer passes) and the time to the event saying "done: N-1" is
# one update; the edit is undone and the time back to "done: N" is another. Printed: medians,
# and the page process's CPU and peak RSS (GNU time). A benchmark, not a test.
set -euo pipefail
RUNS=${1:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_DIR:-$ROOT/target/bench}
LABCHECK=${LABCHECK:-$ROOT/target/release/labcheck}
SIZES=${SIZES:-"1 10 50 200"}
LATENCY=${LATENCY:-50}
PORT=${PORT:-18181}
[ -x "$LABCHECK" ] && [ -f "$OUT/step-4.yaml" ] || { echo "bench/page.sh: run bench/run.sh first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/page.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v curl >/dev/null || { echo "bench/page.sh: needs curl" >&2; exit 2; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/page.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

max=0; for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
PIDS=(); PAGE=
stop_all() {
  [ -n "$PAGE" ] && pkill -INT -P "$PAGE" 2>/dev/null || true
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_all EXIT
rm -rf "$OUT/page" && mkdir -p "$OUT/page/kc" "$OUT/page/work"
for i in $(seq "$max"); do
  "$LABCHECK" serve "$OUT/step-4.yaml" --latency "$LATENCY" --write-kubeconfig "$OUT/page/kc/learner-$i.yaml" >/dev/null 2>&1 &
  PIDS+=($!)
  cp -r "$OUT/step-4/work" "$OUT/page/work/learner-$i"
done
for _ in $(seq 300); do [ "$(ls "$OUT/page/kc" | wc -l)" = "$max" ] && break; sleep 0.1; done
sleep 1

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms_since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'; }

# await_done N: read the events' counts (fd 3) until one says "done: N"; print the time.
await_done() {
  local line
  while IFS= read -r -t 30 line <&3; do
    case $line in *"done: <b>$1</b>"*) echo "$EPOCHREALTIME"; return 0 ;; esac
  done
  echo "bench/page.sh: the page never said done: $1" >&2; return 1
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %14s %12s %12s %10s\n' learners "first render" "update" "cpu/learner" "peak RSS"
for n in $SIZES; do
  rm -rf "$OUT/page/kc-$n" && mkdir "$OUT/page/kc-$n"
  for i in $(seq "$n"); do cp "$OUT/page/kc/learner-$i.yaml" "$OUT/page/kc-$n/"; done
  values=$OUT/page/work/learner-1/checkout-config/helm/dev.yaml
  : >"$OUT/page/first"; : >"$OUT/page/update"; : >"$OUT/page/cpu"; : >"$OUT/page/rss"
  for _ in $(seq "$RUNS"); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%U %S %M' -o "$OUT/page/time" "$LABCHECK" class serve module-10 step-4 \
      --kubeconfigs "$OUT/page/kc-$n" --work-dirs "$OUT/page/work/{learner}" \
      --listen "127.0.0.1:$PORT" >"$OUT/page/serve.out" 2>&1 &
    PAGE=$!
    until curl -s -o /dev/null "http://127.0.0.1:$PORT/learner/-"; do sleep 0.005; done
    # grep picks the counts out of each event (a room of 200 is a large event; bash reads a
    # pipe a byte at a time and would become the slowest part of the benchmark).
    exec 3< <(curl -sN "http://127.0.0.1:$PORT/events" | grep --line-buffered -o 'done: <b>[0-9]*</b>')
    t1=$(await_done "$n")
    ms_since "$t0" "$t1" >>"$OUT/page/first"
    cp "$values" "$OUT/page/values.orig"
    t0=$EPOCHREALTIME; echo "replicaCount: 2" >>"$values"
    t1=$(await_done $((n - 1)))
    ms_since "$t0" "$t1" >>"$OUT/page/update"
    t0=$EPOCHREALTIME; cp "$OUT/page/values.orig" "$values"
    t1=$(await_done "$n")
    ms_since "$t0" "$t1" >>"$OUT/page/update"
    exec 3<&-
    # GNU time ignores SIGINT while its command runs: stop the page itself.
    pkill -INT -P "$PAGE"; wait "$PAGE" 2>/dev/null || true; PAGE=
    read -r user sys rss <"$OUT/page/time"
    awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { printf "%.2f\n", (u + s) * 1000 / n }' >>"$OUT/page/cpu"
    echo "$rss" >>"$OUT/page/rss"
  done
  printf '%-8s %11s ms %9s ms %9s ms %7s kB\n' "$n" "$(median <"$OUT/page/first")" \
    "$(median <"$OUT/page/update")" "$(median <"$OUT/page/cpu")" "$(sort -g "$OUT/page/rss" | tail -1)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
