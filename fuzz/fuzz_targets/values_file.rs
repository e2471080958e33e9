//! See `fuzz/targets.rs` (values_file): the body is shared with the stable-toolchain driver.
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::values_file(data));
