//! Any text as a check file (step or module.yaml): an error with a position, never a panic or hang.
#![no_main]

use labcheck::course::parse_yaml;
use labcheck::course::schema::{ModuleManifest, StepFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = parse_yaml::<StepFile>("step.yaml", text) {
        // Every error names the file so a course author can find it.
        assert!(e.to_string().starts_with("step.yaml"), "{e}");
    }
    let _ = parse_yaml::<ModuleManifest>("module.yaml", text);
});
