#!/usr/bin/env bash
# The slowest tests of a test target, as docs/testing.md records them.
#
#   scripts/test-times.sh [TARGET] [N]     (default TARGET=labcheck, N=10)
#
# Builds the target's test binary, runs it once with libtest's per-test timing (`--report-time`,
# unlocked on a stable toolchain by RUSTC_BOOTSTRAP for this one run of the binary only; the
# build itself is the normal one), and prints the binary's wall time and the N slowest tests.
# Tests run in parallel as under `cargo test`, so a test's time includes waiting for a core.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-labcheck}
most=${2:-10}
binary=$(cargo test --locked --no-run --message-format=json --test "$target" 2>/dev/null \
  | jq -r 'select(.profile.test == true and .executable != null) | .executable' | tail -n 1)
[[ -x $binary ]] || { echo "scripts/test-times.sh: no test binary for --test $target" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$EPOCHREALTIME
status=0
RUSTC_BOOTSTRAP=1 "$binary" -Z unstable-options --report-time >"$log" 2>&1 || status=$?
end=$EPOCHREALTIME
awk -v s="$start" -v e="$end" 'BEGIN { printf "wall: %.1f s\n", e - s }'
grep -E '^test result' "$log" || true
grep -E '^test .* <[0-9.]+s>$' "$log" \
  | sed -E 's/^test (.*) \.\.\. [a-z]+ <([0-9.]+)s>$/\2 \1/' \
  | sort -rn | head -n "$most" \
  | awk '{ printf "%8.1f s  %s\n", $1, $2 }'
exit "$status"
