//! The YAML path parser and evaluator. Input: a path on the first line, a YAML document after it.
//! A path that parses writes back (`Display`) to a path that parses to the same steps; looking it up
//! in any document, as Helm reads it, never panics.
#![no_main]

use labcheck::checks::helm_yaml;
use labcheck::yaml_path::YamlPath;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
    if let Ok(documents) = helm_yaml::parse_documents(document) {
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
});
