//! See `fuzz/targets.rs` (yaml_path): the body is shared with the stable-toolchain driver.
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::yaml_path(data));
