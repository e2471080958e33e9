//! The fuzz targets on a stable toolchain, where cargo-fuzz (libFuzzer with sanitizers) cannot
//! run: the same target functions (`fuzz/targets.rs`) over inputs mutated from the seeds in
//! `fuzz/corpus/<target>/`, with a fixed random seed so a run can be repeated.
//!
//!   cargo run --example fuzz-stable -- TARGET INPUTS [SEED]
//!   cargo run --example fuzz-stable -- TARGET 0 --replay FILE     one saved input, timed
//!
//! A mutation is a byte flip, an insert or delete, a duplicated or spliced range, or a YAML-ish
//! token (`[`, `&a`, `*a`, `<<:`, a tab, a BOM, `..`, …). Every input is checked for a panic (the
//! input is saved to `fuzz/artifacts/stable-TARGET-N` and the run fails) and for time: one input
//! slower than 2 s is a hang. It is coverage-blind, unlike libFuzzer: say so when quoting it.

#[path = "targets.rs"]
mod targets;

use std::time::{Duration, Instant};

const TOKENS: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "<<: *a",
    "\t",
    "\u{feff}",
    "..",
    "../",
    "/",
    "\\",
    ": ",
    "- ",
    "\n",
    "\n  ",
    "'",
    "\"",
    "#",
    "---\n",
    "!!binary ",
    "|\n",
    "? ",
    "~",
    "\0",
    "C:",
    "\u{1}",
    "checks:\n",
    "steps: []",
    "id: a\n",
    "path: ",
    "yes",
    "0x1F",
    "1e9999",
    "é",
];

/// One input slower than this (twice) is a hang.
const HANG: Duration = Duration::from_secs(2);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], input: &mut Vec<u8>) {
    for _ in 0..=rng.below(8) {
        let at = rng.below(input.len() + 1);
        match rng.below(7) {
            0 if !input.is_empty() => {
                let i = rng.below(input.len());
                input[i] ^= 1 << rng.below(8);
            }
            1 => input.insert(at, rng.next() as u8),
            2 if !input.is_empty() => {
                let end = (at + rng.below(16)).min(input.len());
                input.drain(at.min(end)..end);
            }
            3 if !input.is_empty() => {
                let start = rng.below(input.len());
                let end = (start + rng.below(64)).min(input.len());
                let copy = input[start..end].to_vec();
                let most = if rng.below(20) == 0 { 200 } else { 3 };
                let times = 1 + rng.below(most);
                for _ in 0..times {
                    input.splice(at..at, copy.iter().copied());
                }
            }
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end = (start + rng.below(256)).min(other.len());
                    input.splice(at..at, other[start..end].iter().copied());
                }
            }
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                input.splice(at..at, token.iter().copied());
            }
        }
    }
    input.truncate(4096);
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(target), Some(count)) =
        (args.get(1), args.get(2).and_then(|n| n.parse::<u64>().ok()))
    else {
        eprintln!("usage: fuzz-stable check_file|yaml_path|values_file|course_path INPUTS [SEED]");
        return std::process::ExitCode::from(2);
    };
    let run: fn(&[u8]) = match target.as_str() {
        "check_file" => targets::check_file,
        "yaml_path" => targets::yaml_path,
        "values_file" => targets::values_file,
        "course_path" => targets::course_path,
        other => {
            eprintln!("no target `{other}`");
            return std::process::ExitCode::from(2);
        }
    };
    // `fuzz-stable TARGET 0 --replay FILE`: run one saved input and say how long it took.
    if args.get(3).map(String::as_str) == Some("--replay") {
        let Some(input) = args.get(4).and_then(|f| std::fs::read(f).ok()) else {
            eprintln!("--replay needs a readable FILE");
            return std::process::ExitCode::from(2);
        };
        let one = Instant::now();
        run(&input);
        println!(
            "{target}: replayed {} bytes in {:?}",
            input.len(),
            one.elapsed()
        );
        return std::process::ExitCode::SUCCESS;
    }
    let seed = args
        .get(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x0005_EED1_ABC0_FFEE);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| std::fs::read(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    seeds.push(Vec::new());
    let mut rng = Rng(seed | 1);
    std::panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let mut slowest = (Duration::ZERO, Vec::new());
    let mut input = Vec::new();
    for n in 0..count {
        // Mostly keep mutating the last input (deeper changes), sometimes restart from a seed.
        if n % 16 == 0 || input.is_empty() {
            input = seeds[rng.below(seeds.len())].clone();
        }
        mutate(&mut rng, &seeds, &mut input);
        let one = Instant::now();
        let outcome = std::panic::catch_unwind(|| run(&input));
        let took = one.elapsed();
        if took > slowest.0 {
            slowest = (took, input.clone());
        }
        // Wall-clock time on a shared, niced machine can stall for seconds: a slow input counts
        // as a hang only if it is slow again when run a second time.
        let hang = took > HANG
            && ({
                let again = Instant::now();
                let _ = std::panic::catch_unwind(|| run(&input));
                again.elapsed() > HANG
            });
        if outcome.is_err() || hang {
            let what = if outcome.is_err() { "panic" } else { "hang" };
            let artifacts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/artifacts");
            let _ = std::fs::create_dir_all(&artifacts);
            let file = artifacts.join(format!("stable-{target}-{n}"));
            let _ = std::fs::write(&file, &input);
            eprintln!(
                "{target}: {what} on input {n} after {:?}, saved to {}",
                started.elapsed(),
                file.display()
            );
            return std::process::ExitCode::FAILURE;
        }
        if n > 0 && n % 100_000 == 0 {
            eprintln!("{target}: {n} inputs in {:.0?}", started.elapsed());
        }
    }
    println!(
        "{target}: {count} inputs, no crash, in {:.1?}; slowest input {:?} ({} bytes)",
        started.elapsed(),
        slowest.0,
        slowest.1.len()
    );
    std::process::ExitCode::SUCCESS
}
