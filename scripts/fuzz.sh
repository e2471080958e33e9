#!/usr/bin/env bash
# Fuzz the check-file parser, the YAML path evaluator, the values reader (with its depth pre-scan)
# and the course-path rule for a bounded time or number of inputs (not part of CI).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]          with cargo-fuzz: libFuzzer, default 300 s each
#   scripts/fuzz.sh --stable [INPUTS_PER_TARGET]  without it: the same target functions over
#                                                 mutated inputs on the stable toolchain (default 1000000)
#
# cargo-fuzz (`cargo install cargo-fuzz`) wants a nightly compiler for its sanitizer flags; on a
# stable toolchain RUSTC_BOOTSTRAP=1 unlocks them, so this script sets it. Where cargo-fuzz is not
# installed, the script falls back to --stable: `cargo run --example fuzz-stable` (fuzz/stable.rs),
# coverage-blind but fed from the same seeds, which counts inputs and flags any input slower than
# 2 s as a hang. Both run niced (nice -n 19): the machine is shared.
#
# The target bodies live in fuzz/targets.rs, shared by both. The seeds in fuzz/corpus/ stay small
# and in git; what libFuzzer adds goes to fuzz/corpus-run/ (ignored). A crash leaves its input in
# fuzz/artifacts/: turn it into a unit test, fix the bug, and keep the input as a seed.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(check_file yaml_path values_file course_path)

if [[ "${1:-}" == "--stable" ]] || ! command -v cargo-fuzz >/dev/null; then
    [[ "${1:-}" == "--stable" ]] && shift
    inputs="${1:-1000000}"
    command -v cargo-fuzz >/dev/null || echo "cargo-fuzz is not installed: running the targets on the stable toolchain instead" >&2
    nice -n 19 cargo build --quiet --example fuzz-stable
    for target in "${targets[@]}"; do
        nice -n 19 target/debug/examples/fuzz-stable "$target" "$inputs"
    done
    echo "fuzz (stable driver): no crash in ${inputs} inputs per target"
    exit 0
fi

seconds="${1:-300}"
export RUSTC_BOOTSTRAP=1
cd fuzz
for target in "${targets[@]}"; do
    mkdir -p "corpus-run/$target"
    echo "== $target for ${seconds}s"
    # One job, one worker: the machine is shared. -rss_limit_mb bounds memory; -timeout flags a
    # single input slower than 10 s as a hang.
    nice -n 19 cargo fuzz run --fuzz-dir . "$target" "corpus-run/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 -print_final_stats=1
done
echo "fuzz: no crash in ${seconds}s per target"
