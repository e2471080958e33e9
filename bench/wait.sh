#!/usr/bin/env bash
# How fast `--wait` sees a sync end, and what it asks the server meanwhile.
#
#   bench/wait.sh [RUNS]     (default RUNS=5; BENCH_DIR=target/bench-wait, WAIT_AFTER=5, LATENCY=50,
#                             LABCHECK=target/debug/labcheck, BUILD=debug|release)
#
# Serves `wait.yaml` (module 10 step 4 with its sync still running, solved after WAIT_AFTER s) with
# `labcheck serve --latency LATENCY --request-log`, runs `labcheck module-10 step-4 --wait 60s`,
# and reports per run: the delay from the change (server start + WAIT_AFTER) to labcheck's exit,
# and the requests it made, split into those before the change and while waiting (by kind:
# watch, list, get, log). A benchmark, not a test: it prints numbers, it asserts nothing but
# that the run passed.
set -euo pipefail

RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_DIR:-$ROOT/target/bench-wait}
WAIT_AFTER=${WAIT_AFTER:-5}
LATENCY=${LATENCY:-50}
BUILD=${BUILD:-debug}
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/wait.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

profile=(); [ "$BUILD" = release ] && profile=(--release)
echo "building ($BUILD)…" >&2
(cd "$ROOT" && cargo build "${profile[@]}" --quiet && cargo build "${profile[@]}" --quiet --example bench-lab)
LABCHECK=${LABCHECK:-$ROOT/target/$BUILD/labcheck}
rm -rf "$OUT" && mkdir -p "$OUT"
"$ROOT/target/$BUILD/examples/bench-lab" "$OUT" "$WAIT_AFTER"

SERVER_PID=
stop_server() { [ -n "$SERVER_PID" ] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; SERVER_PID=; }
trap stop_server EXIT

printf '%-4s %16s %9s %9s %s\n' run "delay ms (lo-hi)" "before" "waiting" "requests while waiting (by kind)"
for run in $(seq "$RUNS"); do
  rm -f "$OUT/kubeconfig" "$OUT/requests.log"
  t_serve=$EPOCHREALTIME
  "$LABCHECK" serve "$OUT/wait.yaml" --latency "$LATENCY" --write-kubeconfig "$OUT/kubeconfig" \
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
  change_ms=$((WAIT_AFTER * 1000))
  before=$(awk -F'\t' -v c="$change_ms" '$1 < c' "$OUT/requests.log" | wc -l)
  # A watch is logged when its stream opens, so streams opened before the change count "before".
  waiting=$(awk -F'\t' -v c="$change_ms" '$1 >= c' "$OUT/requests.log" | wc -l)
  kinds=$(awk -F'\t' -v c="$change_ms" '$1 >= c { k = ($3 ~ /watch=1/) ? "watch" : ($3 ~ /\/log/) ? "log" : "read"; n[k]++ } END { for (k in n) printf "%s=%d ", k, n[k] }' "$OUT/requests.log")
  printf '%-4s %16s %9s %9s %s\n' "$run" "$delay" "$before" "$waiting" "${kinds:-none}"
  cp "$OUT/requests.log" "$OUT/requests.$run.log"
done
echo "streams opened (run $RUNS): $(grep -c 'watch=1' "$OUT/requests.$RUNS.log"); request log: $OUT/requests.$RUNS.log"
