use std::process::ExitCode;

/// mimalloc, not glibc's malloc: a class run's tokio threads allocate and free across 200
/// learners' reads at once, and glibc's arenas spent a fifth of that run's CPU (`perf`) in malloc,
/// free and their consolidation. bench/fleet.sh: 3.2 -> 2.6 ms of labcheck's CPU per learner in
/// a class of 200, for about 17 MB more resident memory (mimalloc commits its first arena whole).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    labcheck::cli::main()
}
