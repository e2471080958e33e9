//! For tests only: YAML a test wrote, read as the type it stands for.

/// `text` read as `T`. A test whose own YAML does not parse is a broken test, not a case, so
/// this panics with the reader's error (one place instead of one copy per test module).
pub fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> T {
    match serde_yaml::from_str(text) {
        Ok(value) => value,
        Err(e) => panic!("test YAML does not parse: {e}"),
    }
}
