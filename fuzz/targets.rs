//! The fuzz targets' bodies, shared by the libFuzzer targets (`fuzz_targets/`, run by cargo-fuzz)
//! and by the stable-toolchain driver (`fuzz/stable.rs`, run by `scripts/fuzz.sh` when cargo-fuzz
//! cannot run). Each takes any bytes and panics only on a real bug.

use labcheck::course::parse_yaml;
use labcheck::course::schema::{ModuleManifest, StepFile};
use labcheck::yaml::helm;
use labcheck::yaml::path::YamlPath;

/// Any text as a check file (step or module.yaml): an error naming the file, never a panic.
pub fn check_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = parse_yaml::<StepFile>("step.yaml", text) {
        // Every error names the file so a course author can find it, and never leaks a marker.
        let message = e.to_string();
        assert!(message.starts_with("step.yaml"), "{message}");
        assert!(!message.contains('\u{1}'), "{message:?}");
    }
    if let Err(e) = parse_yaml::<ModuleManifest>("module.yaml", text) {
        let message = e.to_string();
        assert!(message.starts_with("module.yaml"), "{message}");
        assert!(!message.contains('\u{1}'), "{message:?}");
    }
}

/// A path on the first line, a YAML document after it: a parsed path writes back to the same
/// path, and looking it up in any document, as Helm reads it, never panics.
pub fn yaml_path(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (path_text, document) = text.split_once('\n').unwrap_or((text, ""));
    let path = match YamlPath::parse(path_text) {
        Ok(path) => path,
        Err(e) => {
            assert!(e.position >= 1, "{e}");
            return;
        }
    };
    let written = path.to_string();
    let again = YamlPath::parse(&written).unwrap_or_else(|e| {
        panic!("`{path_text}` parsed, but its written form `{written}` does not: {e}")
    });
    assert_eq!(again, path, "`{path_text}` → `{written}`");
    if let Ok(documents) = helm::parse_documents(document) {
        for doc in &documents {
            let found = path.lookup(doc);
            // The deepest existing prefix of a path that leads somewhere is the path itself.
            if found.is_some() && !path.segments().is_empty() {
                assert_eq!(path.deepest_existing(doc).as_ref(), Some(&path));
            }
            if let Ok(json) = serde_json::to_value(doc) {
                let _ = path.lookup_json(&json);
            }
        }
    }
}

/// Any text as a learner's values file: the depth pre-scan and the Helm-like reader never panic,
/// and text the pre-scan lets through never goes deeper than the parser can take.
pub fn values_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = labcheck::yaml::guard::check_depth(text);
    let _ = labcheck::yaml::guard::find_merge_key(text);
    let _ = labcheck::yaml::guard::find_duplicate_key(text, "a");
    let _ = helm::parse_documents(text);
}

/// Any text as a course or repo-relative path: what [`labcheck::paths::relative_inside`] accepts
/// never leaves its root, however the operating system reads it.
pub fn course_path(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if labcheck::paths::relative_inside(text).is_ok() {
        let root = std::path::Path::new("/lab/root");
        let joined = root.join(text);
        assert!(joined.starts_with(root), "{text:?} leaves the root");
        let mut depth = 0i64;
        for component in std::path::Path::new(text).components() {
            match component {
                std::path::Component::Normal(_) => depth += 1,
                std::path::Component::CurDir => {}
                other => panic!("{text:?} has {other:?}"),
            }
            assert!(depth >= 0);
        }
        assert!(!text.split(['/', '\\']).any(|p| p == ".."), "{text:?}");
    }
}
