#!/usr/bin/env bash
# Fuzz the check-file parser and the YAML path evaluator for a bounded time (not part of CI).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      default 300; e.g. `scripts/fuzz.sh 600`
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). cargo-fuzz wants a nightly compiler for its
# sanitizer flags; on a stable toolchain RUSTC_BOOTSTRAP=1 unlocks them, so this script sets it.
# The seeds in fuzz/corpus/ stay small and in git; what libFuzzer adds goes to fuzz/corpus-run/
# (ignored). A crash leaves its input in fuzz/artifacts/<target>/: turn it into a unit test, fix
# the bug, and keep the input as a seed.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-300}"
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz is not installed: cargo install cargo-fuzz" >&2; exit 2; }

for target in check_file yaml_path; do
    mkdir -p "corpus-run/$target"
    echo "== $target for ${seconds}s"
    # One job, one worker: the machine is shared. -rss_limit_mb bounds memory; -timeout flags a
    # single input slower than 10 s as a hang.
    cargo fuzz run --fuzz-dir . "$target" "corpus-run/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 -print_final_stats=1
done
echo "fuzz: no crash in ${seconds}s per target"
