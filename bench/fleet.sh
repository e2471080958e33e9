#!/usr/bin/env bash
# Fleet matrix: one step for 1, 10 and 50 served environments (one `labcheck serve` each, 50 ms).
#
#   bench/fleet.sh [RUNS]        (run bench/run.sh first: it builds the binary and target/bench)
#
# Needs a labcheck with a fleet mode (`--kubeconfigs DIR`, issue 4); without one it says so and
# exits 2. Target: 50 environments take at most 2x the time of one.
set -euo pipefail
RUNS=${1:-7}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_DIR:-$ROOT/target/bench}
LABCHECK=$ROOT/target/release/labcheck
[ -x "$LABCHECK" ] && [ -f "$OUT/step-4.yaml" ] || { echo "bench/fleet.sh: run bench/run.sh first" >&2; exit 2; }
"$LABCHECK" --help | grep -q -- '--kubeconfigs' || {
  echo "bench/fleet.sh: this labcheck has no fleet mode (--kubeconfigs DIR, issue 4): nothing to measure" >&2; exit 2; }

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait' EXIT
rm -rf "$OUT/fleet" && mkdir -p "$OUT/fleet/kc" "$OUT/fleet/work"
for i in $(seq 50); do
  "$LABCHECK" serve "$OUT/step-4.yaml" --latency 50 --write-kubeconfig "$OUT/fleet/kc/learner-$i.yaml" >/dev/null 2>&1 &
  PIDS+=($!)
  ln -s "$OUT/step-4/work" "$OUT/fleet/work/learner-$i"
done
for _ in $(seq 100); do [ "$(ls "$OUT/fleet/kc" | wc -l)" = 50 ] && break; sleep 0.1; done

printf '%-6s %10s\n' envs median
for n in 1 10 50; do
  rm -rf "$OUT/fleet/kc-$n" && mkdir "$OUT/fleet/kc-$n"
  for i in $(seq "$n"); do cp "$OUT/fleet/kc/learner-$i.yaml" "$OUT/fleet/kc-$n/"; done
  : >"$OUT/fleet/ms"
  for _ in $(seq "$RUNS"); do
    t0=$EPOCHREALTIME
    "$LABCHECK" module-10 step-4 --kubeconfigs "$OUT/fleet/kc-$n" --work-dirs "$OUT/fleet/work/{learner}" --no-wait >/dev/null 2>&1 || true
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$OUT/fleet/ms"
  done
  printf '%-6s %7s ms\n' "$n" "$(sort -g "$OUT/fleet/ms" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
done
