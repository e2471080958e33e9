#!/usr/bin/env bash
# How fast `--wait` sees a sync end, and what it asks the server meanwhile.
#
#   bench/wait.sh [RUNS]     (default RUNS=5; BENCH_DIR=target/bench-wait, WAIT_AFTER=5, LATENCY=50,
#                             BUILD=release|debug|none, LABCHECK=target/$BUILD/labcheck,
#                             BENCH_LAB=target/$BUILD/examples/bench-lab,
#                             SNAPSHOTS="wait.yaml wait-log.yaml")
#
# For each snapshot of `bench-lab` (wait.yaml: step 4's sync running, solved at WAIT_AFTER, the
# SyncFail hook's pod appearing and ending at that moment; wait-log.yaml: the same, with the hook's
# pod running for its last second and logging its line as it ends, so the last change is a log
# check's) it serves the snapshot with `labcheck serve --latency LATENCY --request-log`, runs
# `labcheck module-10 step-4 --wait 60s`, and reports per run: the delay from the change (server
# start + WAIT_AFTER) to labcheck's exit, and the requests it made, split into those before the
# change and after it (by kind: watch, follow, log, read), then the median delays. BUILD=none uses
# the binaries already built. A benchmark, not a test: it prints numbers, it asserts nothing but
# that the run passed.
set -euo pipefail

RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_DIR:-$ROOT/target/bench-wait}
WAIT_AFTER=${WAIT_AFTER:-5}
LATENCY=${LATENCY:-50}
BUILD=${BUILD:-release}
SNAPSHOTS=${SNAPSHOTS:-"wait.yaml wait-log.yaml"}
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/wait.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

profile=(); built=debug
case $BUILD in
  release) profile=(--release); built=release ;;
  none) [ -x "$ROOT/target/release/examples/bench-lab" ] && built=release ;;
esac
if [ "$BUILD" != none ]; then
  echo "building ($BUILD)…" >&2
  (cd "$ROOT" && cargo build "${profile[@]}" --quiet && cargo build "${profile[@]}" --quiet --example bench-lab)
fi
LABCHECK=${LABCHECK:-$ROOT/target/$built/labcheck}
rm -rf "$OUT" && mkdir -p "$OUT"
"${BENCH_LAB:-$ROOT/target/$built/examples/bench-lab}" "$OUT" "$WAIT_AFTER"
echo "labcheck: $LABCHECK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

SERVER_PID=
stop_server() { [ -n "$SERVER_PID" ] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; SERVER_PID=; }
trap stop_server EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for snapshot in $SNAPSHOTS; do
echo
echo "$snapshot:"
: >"$OUT/lo.ms"; : >"$OUT/hi.ms"
printf '%-4s %16s %9s %9s %s\n' run "delay ms (lo-hi)" "before" "after" "requests after the change (by kind)"
for run in $(seq "$RUNS"); do
  rm -f "$OUT/kubeconfig" "$OUT/requests.log"
  t_serve=$EPOCHREALTIME
  "$LABCHECK" serve "$OUT/$snapshot" --latency "$LATENCY" --write-kubeconfig "$OUT/kubeconfig" \
    --request-log "$OUT/requests.log" >"$OUT/serve.out" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 500); do [ -s "$OUT/kubeconfig" ] && grep -q "Ctrl-C" "$OUT/serve.out" && break; sleep 0.002; done
  t_ready=$EPOCHREALTIME
  rc=0
  "$LABCHECK" module-10 step-4 --work-dir "$OUT/step-4/work" --kubeconfig "$OUT/kubeconfig" \
    --wait 60s --color never >"$OUT/wait.out" 2>"$OUT/wait.err" || rc=$?
  t_exit=$EPOCHREALTIME
  stop_server
  [ "$rc" = 0 ] || { echo "bench/wait.sh: labcheck exited $rc (the sync should end passing):" >&2; cat "$OUT/wait.out" "$OUT/wait.err" >&2; exit 1; }
  # The server's timeline starts between launching it (t_serve: the delay errs high) and seeing
  # it ready (t_ready: errs low); both bounds are printed.
  hi=$(awk -v a="$t_serve" -v b="$t_exit" -v w="$WAIT_AFTER" 'BEGIN { printf "%.0f", (b - a - w) * 1000 }')
  lo=$(awk -v a="$t_ready" -v b="$t_exit" -v w="$WAIT_AFTER" 'BEGIN { printf "%.0f", (b - a - w) * 1000 }')
  delay="$lo-$hi"
  echo "$lo" >>"$OUT/lo.ms"; echo "$hi" >>"$OUT/hi.ms"
  change_ms=$((WAIT_AFTER * 1000))
  before=$(awk -F'\t' -v c="$change_ms" '$1 < c' "$OUT/requests.log" | wc -l)
  # A watch is logged when its stream opens, so streams opened before the change count "before".
  waiting=$(awk -F'\t' -v c="$change_ms" '$1 >= c' "$OUT/requests.log" | wc -l)
  kinds=$(awk -F'\t' -v c="$change_ms" '$1 >= c { k = ($3 ~ /watch=1/) ? "watch" : ($3 ~ /follow=true/) ? "follow" : ($3 ~ /\/log/) ? "log" : "read"; n[k]++ } END { for (k in n) printf "%s=%d ", k, n[k] }' "$OUT/requests.log")
  printf '%-4s %16s %9s %9s %s\n' "$run" "$delay" "$before" "$waiting" "${kinds:-none}"
  cp "$OUT/requests.log" "$OUT/requests.$run.log"
done
echo "median delay: $(median <"$OUT/lo.ms")-$(median <"$OUT/hi.ms") ms (lo-hi); streams opened (run $RUNS): $(grep -c 'watch=1\|follow=true' "$OUT/requests.$RUNS.log"); request log: $OUT/requests.$RUNS.log"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
