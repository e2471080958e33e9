// The course (modules/ and expected/) is embedded with include_dir, which cannot tell cargo that
// it read those folders; without this an edited check file would not reach the binary.
//
// `labcheck --version` names the course it carries: its modules and a fingerprint of every
// embedded file, so two binaries of one version built from different course files (a fork, a
// local edit) tell themselves apart, and a learner's bug report says which course they ran.
use std::fs;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=modules");
    println!("cargo:rerun-if-changed=expected");

    let mut files = Vec::new();
    for root in ["modules", "expected"] {
        collect(Path::new(root), &mut files);
    }
    files.sort();
    // FNV-1a over each path and its bytes: no dependency, and the same number on every platform
    // and Rust version (std's hasher promises neither).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        for byte in path.bytes().chain([0]).chain(bytes).chain([0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let mut modules: Vec<String> = fs::read_dir("modules")
        .unwrap_or_else(|e| panic!("cannot read modules/: {e}"))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry
                .path()
                .is_dir()
                .then(|| entry.file_name().to_string_lossy().into_owned())
        })
        .collect();
    modules.sort();
    println!(
        "cargo:rustc-env=LABCHECK_COURSE_MODULES={}",
        modules.join(" ")
    );
    println!("cargo:rustc-env=LABCHECK_COURSE_FINGERPRINT={hash:016x}");
}

/// Every file under `dir`, as a `/`-separated path, whatever the platform's separator.
fn collect(dir: &Path, files: &mut Vec<String>) {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            let parts: Vec<String> = path
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
}
