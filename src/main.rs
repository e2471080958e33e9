use std::process::ExitCode;

/// mimalloc, not glibc's malloc: a class run's tokio threads allocate and free across 200
/// learners' reads at once, and glibc's arenas spent a fifth of that run's CPU (`perf`) in malloc,
/// free and their consolidation. Alternating release binaries on a class of 200: 3.2 -> 2.8 ms of
/// labcheck's CPU per learner. `.cargo/config.toml` has it commit memory as it is used, so a
/// start costs what it did with glibc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    labcheck::cli::main()
}
