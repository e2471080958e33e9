#!/usr/bin/env bash
# Benchmark labcheck against the course's bash verify scripts on the same served snapshot and work dir.
#
#   bench/run.sh [RUNS]          (default RUNS=21; BENCH_DIR=target/bench, LATENCIES="0 20 50")
#
# Needs: cargo, git, kubectl, bash >= 5 (EPOCHREALTIME), GNU time at /usr/bin/time (peak RSS).
# It builds the release binary and the bench-lab example, builds lab worlds for module 10 step 2,
# step 4 and break-it, serves each solved cluster with `labcheck serve --latency MS --request-log`,
# and times labcheck and the verify script alternately. Prints medians, the ratio script/labcheck
# and the API requests each made (counted by the server). Then: whole module vs one step, peak
# RSS, and the request rate of `--wait` while the cluster is still moving.
set -euo pipefail

RUNS=${1:-21}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_DIR:-$ROOT/target/bench}
LATENCIES=${LATENCIES:-"0 20 50"}
WAIT_AFTER=${WAIT_AFTER:-10}

need() { command -v "$1" >/dev/null 2>&1 || { echo "bench/run.sh: needs $1 on PATH ($2)" >&2; exit 2; }; }
need cargo "https://rustup.rs"
need git "apt-get install git"
need kubectl "the verify scripts are written with kubectl; install it from https://kubernetes.io/docs/tasks/tools/"
[ -x /usr/bin/time ] || { echo "bench/run.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench/run.sh: needs bash >= 5 (EPOCHREALTIME)" >&2; exit 2; }

echo "building (release)…" >&2
(cd "$ROOT" && cargo build --release --quiet && cargo build --release --quiet --example bench-lab)
LABCHECK=$ROOT/target/release/labcheck
rm -rf "$OUT" && mkdir -p "$OUT"
"$ROOT/target/release/examples/bench-lab" "$OUT" "$WAIT_AFTER"

SERVER_PID=
stop_server() { [ -n "$SERVER_PID" ] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; SERVER_PID=; }
trap stop_server EXIT

# serve SNAPSHOT LATENCY: start a server, wait until its kubeconfig is written
serve() {
  rm -f "$OUT/kubeconfig" "$OUT/requests.log"
  "$LABCHECK" serve "$1" --latency "$2" --write-kubeconfig "$OUT/kubeconfig" \
    --request-log "$OUT/requests.log" >"$OUT/serve.out" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 100); do [ -s "$OUT/kubeconfig" ] && grep -q "Ctrl-C" "$OUT/serve.out" && return; sleep 0.05; done
  echo "bench/run.sh: labcheck serve did not start:" >&2; cat "$OUT/serve.out" >&2; exit 2
}
requests() { wc -l <"$OUT/requests.log"; }

# elapsed_ms CMD…: run it quietly, print wall milliseconds (fails loudly if it did not pass)
elapsed_ms() {
  local t0=$EPOCHREALTIME rc=0
  "$@" >/dev/null 2>&1 || rc=$?
  local t1=$EPOCHREALTIME
  [ "$rc" = 0 ] || { echo "bench/run.sh: $* exited $rc (the lab should pass)" >&2; exit 1; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

labcheck_cmd() { # POINT [STEP]
  echo "$LABCHECK" module-10 ${2:+"$2"} --work-dir "$OUT/$1/work" --kubeconfig "$OUT/kubeconfig" --no-wait --color never
}
step_of() { case $1 in step-2) echo step-2 ;; step-4) echo step-4 ;; break-it) echo break-it/break ;; esac; }
script_of() { case $1 in break-it) echo "$ROOT/bench/verify/break-it-break.sh" ;; *) echo "$ROOT/bench/verify/$1.sh" ;; esac; }

printf '\n%-8s %-15s %10s %10s %7s %10s %10s\n' latency step labcheck script ratio "req lc" "req script"
for lat in $LATENCIES; do
  for point in step-2 step-4 break-it; do
    serve "$OUT/$point.yaml" "$lat"
    export KUBECONFIG=$OUT/kubeconfig WORK=$OUT/$point/work
    lc=$(labcheck_cmd "$point" "$(step_of "$point")")
    sc=$(script_of "$point")
    # one run each to count requests (a warm-up too)
    n0=$(requests); $lc >/dev/null; n1=$(requests); "$sc" >/dev/null; n2=$(requests)
    : >"$OUT/lc.ms"; : >"$OUT/sc.ms"
    for _ in $(seq "$RUNS"); do
      elapsed_ms $lc >>"$OUT/lc.ms"
      elapsed_ms "$sc" >>"$OUT/sc.ms"
    done
    ml=$(median <"$OUT/lc.ms"); ms=$(median <"$OUT/sc.ms")
    printf '%-8s %-15s %8s ms %7s ms %6.1fx %10s %10s\n' "${lat}ms" "$(step_of "$point")" "$ml" "$ms" \
      "$(awk -v a="$ms" -v b="$ml" 'BEGIN { print a / b }')" $((n1 - n0)) $((n2 - n1))
    stop_server
  done
done

echo
echo "whole module vs one step (step-4 lab, 50 ms):"
serve "$OUT/step-4.yaml" 50
export KUBECONFIG=$OUT/kubeconfig
: >"$OUT/one.ms"; : >"$OUT/all.ms"
n0=$(requests); $(labcheck_cmd step-4) >/dev/null || true; n1=$(requests)
for _ in $(seq "$RUNS"); do
  elapsed_ms $(labcheck_cmd step-4 step-4) >>"$OUT/one.ms"
  # the module run exits 1 (steps after step 4 are not done yet in this lab); time it anyway
  t0=$EPOCHREALTIME; $(labcheck_cmd step-4) >/dev/null 2>&1 || true; t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$OUT/all.ms"
done
one=$(median <"$OUT/one.ms"); all=$(median <"$OUT/all.ms")
printf '  step-4 %s ms, module-10 %s ms (%s requests): ratio %.2f\n' "$one" "$all" $((n1 - n0)) \
  "$(awk -v a="$all" -v b="$one" 'BEGIN { print a / b }')"

echo "peak RSS (GNU time, max resident set):"
for what in "step-4" ""; do
  /usr/bin/time -v -o "$OUT/time.txt" $(labcheck_cmd step-4 $what) >/dev/null 2>&1 || true
  printf '  labcheck module-10 %-8s %6s kB\n' "${what:-(all)}" "$(awk -F': ' '/Maximum resident/ { print $2 }' "$OUT/time.txt")"
done
stop_server

# wait_load DESCRIPTION ARGS…: serve wait.yaml, run labcheck with ARGS, report the request rate
wait_load() {
  local what=$1; shift
  echo "--wait load, $what: step 4's sync still running, solved after ${WAIT_AFTER}s (latency 0):"
  serve "$OUT/wait.yaml" 0
  export KUBECONFIG=$OUT/kubeconfig
  local t0=$EPOCHREALTIME
  "$LABCHECK" module-10 "$@" --work-dir "$OUT/step-4/work" --color never >"$OUT/wait.out" 2>&1 || true
  local t1=$EPOCHREALTIME
  stop_server
  awk -F'\t' -v secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
    { n++; path = $3; if (!(path in first)) first[path] = $1; last[path] = $1; per[path]++ }
    END {
      printf "  %d requests in %.1f s (%.2f/s) over %d objects; per object, reads per second between its first and last read:\n", n, secs, n / secs, length(per)
      for (p in per) if (per[p] > 1) printf "    %5.2f/s  (%2d reads)  %s\n", (per[p] - 1) * 1000 / (last[p] - first[p]), per[p], p
    }' "$OUT/requests.log"
}
wait_load "one step (labcheck module-10 step-4 --wait 60s)" step-4 --wait 60s
grep -q "step-4: done" "$OUT/wait.out" || { echo "bench/run.sh: the wait run did not end passing:" >&2; cat "$OUT/wait.out" >&2; exit 1; }
wait_load "whole module, steps waiting side by side (labcheck module-10 --wait $((WAIT_AFTER + 5))s)" --wait $((WAIT_AFTER + 5))s
