//! Paths into YAML and JSON documents, as a course author writes them in a check file:
//! `migration.enabled`, `spec.template.spec.containers[0].image`,
//! `metadata.annotations["argocd.argoproj.io/sync-wave"]`.
//!
//! Grammar: a path is one or more steps. A step is a bare key (`image`), a quoted key in brackets
//! (`["a.b/c"]` or `['a.b/c']`, for keys holding dots, brackets, quotes or spaces), a list index in
//! brackets (`[0]`) or a list item selected by a key (`[name=checkout]`, `[name="a b"]`), as
//! kubectl's JSONPath filters (`[?(@.name=="checkout")]`) do: a chart that adds a sidecar first
//! moves `[0]`, never `[name=checkout]`. Bare keys after the first are joined with `.`; bracket steps
//! need no dot.

use std::fmt;

use super::fields::{FromText, deserialize_via};

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A mapping key.
    Key(String),
    /// A position in a list, from 0.
    Index(usize),
    /// The one list item whose `key` holds `value` (a scalar, compared as text).
    Select { key: String, value: String },
}

/// A parsed path; `Display` writes it back in the form it was read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct YamlPath {
    segments: Vec<Segment>,
}

/// Why a path could not be read: where (a character position, from 1) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path `{path}`, character {position}: {message}")]
pub struct PathError {
    pub path: String,
    pub position: usize,
    pub message: String,
}

/// Characters that end a bare key: they need the `["…"]` form.
fn ends_bare_key(c: char) -> bool {
    matches!(c, '.' | '[' | ']' | '"' | '\'') || c.is_whitespace()
}

impl YamlPath {
    /// Read a path written in a check file.
    pub fn parse(text: &str) -> Result<YamlPath, PathError> {
        Parser {
            text,
            chars: text.char_indices().collect(),
            at: 0,
        }
        .parse()
    }

    /// The steps of the path.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// A path from its steps (empty: the document itself).
    pub fn from_segments(segments: Vec<Segment>) -> YamlPath {
        YamlPath { segments }
    }

    /// This path with one more step.
    pub fn child(&self, segment: Segment) -> YamlPath {
        let mut segments = self.segments.clone();
        segments.push(segment);
        YamlPath { segments }
    }
}

impl fmt::Display for YamlPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Index(n) => write!(f, "[{n}]")?,
                Segment::Select { key, value } => {
                    write!(f, "[{key}=")?;
                    write_value(f, value)?;
                    f.write_str("]")?;
                }
                Segment::Key(key) if !key.is_empty() && !key.chars().any(ends_bare_key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?;
                }
                Segment::Key(key) => {
                    f.write_str("[")?;
                    write_quoted(f, key)?;
                    f.write_str("]")?;
                }
            }
        }
        Ok(())
    }
}

/// A selector's value: bare where the grammar allows it, else double-quoted.
fn write_value(f: &mut fmt::Formatter<'_>, value: &str) -> fmt::Result {
    if !value.is_empty() && !value.chars().any(ends_selector_value) {
        f.write_str(value)
    } else {
        write_quoted(f, value)
    }
}

/// `"text"` with `"` and `\` escaped.
fn write_quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

/// Characters that end a bare selector value (`[name=a b]` must be `[name="a b"]`).
fn ends_selector_value(c: char) -> bool {
    matches!(c, '[' | ']' | '"' | '\'' | '=') || c.is_whitespace()
}

impl std::str::FromStr for YamlPath {
    type Err = PathError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        YamlPath::parse(text)
    }
}

// Read from a check file as a string; a bad path becomes a `file:line:col` error at load, because
// the error is raised while serde_yaml still knows where the string is.
deserialize_via!(FromText, YamlPath);

impl FromText for YamlPath {
    const EXPECTING: &'static str = "a path such as `image.tag` or `metadata.annotations[\"a/b\"]`";

    fn from_text(text: &str) -> Result<Self, String> {
        YamlPath::parse(text).map_err(|e| e.to_string())
    }
}

struct Parser<'t> {
    text: &'t str,
    chars: Vec<(usize, char)>,
    at: usize,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> PathError {
        PathError {
            path: self.text.to_string(),
            position: self.at + 1,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).map(|&(_, c)| c)
    }

    fn parse(mut self) -> Result<YamlPath, PathError> {
        if self.text.is_empty() {
            return Err(self.error("the path is empty; write a key such as `image.tag`"));
        }
        let mut segments = Vec::new();
        let mut first = true;
        while let Some(c) = self.peek() {
            match c {
                '[' => segments.push(self.bracket()?),
                '.' if !first => {
                    self.at += 1;
                    match self.peek() {
                        Some(c) if !ends_bare_key(c) => segments.push(self.bare_key()),
                        Some('[') => {
                            return Err(self.error(
                                "a `[` follows a `.`; write `a[0]` or `a[\"b.c\"]` without the dot",
                            ));
                        }
                        _ => return Err(self.error("expected a key after `.`")),
                    }
                }
                c if first && !ends_bare_key(c) => segments.push(self.bare_key()),
                _ if first => {
                    return Err(self.error(format!(
                        "a path starts with a key or `[`, not `{c}`; quote keys with dots or spaces as `[\"a.b\"]`"
                    )));
                }
                _ => {
                    return Err(self.error(format!(
                        "expected `.`, `[` or the end of the path, found `{c}`; quote keys with dots or spaces as `[\"a.b\"]`"
                    )));
                }
            }
            first = false;
        }
        Ok(YamlPath { segments })
    }

    fn bare_key(&mut self) -> Segment {
        let start = self.at;
        while self.peek().is_some_and(|c| !ends_bare_key(c)) {
            self.at += 1;
        }
        Segment::Key(self.chars[start..self.at].iter().map(|&(_, c)| c).collect())
    }

    /// `[0]`, `["key"]`, `['key']` or `[key=value]`; the cursor is on `[`.
    fn bracket(&mut self) -> Result<Segment, PathError> {
        self.at += 1;
        let segment = match self.peek() {
            Some('"' | '\'') => Segment::Key(self.quoted()?),
            Some('-') => {
                return Err(self.error(
                    "list indexes count from 0 at the start; to pick an item wherever it is, select it by a key such as `[name=checkout]`",
                ));
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.at += 1;
                }
                let digits: String = self.chars[start..self.at].iter().map(|&(_, c)| c).collect();
                let Ok(index) = digits.parse::<usize>() else {
                    self.at = start;
                    return Err(self.error(format!("list index {digits} is too large")));
                };
                Segment::Index(index)
            }
            Some(c) if !ends_bare_key(c) && c != '=' => self.selector()?,
            Some(c) => {
                return Err(self.error(format!(
                    "expected a list index such as `[0]`, an item selector such as `[name=checkout]` or a quoted key such as `[\"a.b\"]` after `[`, found `{c}`"
                )));
            }
            None => {
                return Err(self.error("the path ends after `[`; close it as `[0]` or `[\"key\"]`"));
            }
        };
        match self.peek() {
            Some(']') => {
                self.at += 1;
                Ok(segment)
            }
            Some(c) => Err(self.error(format!("expected `]`, found `{c}`"))),
            None => Err(self.error("expected `]` before the end of the path")),
        }
    }

    /// `"…"` or `'…'`; the cursor is on the opening quote.
    fn quoted(&mut self) -> Result<String, PathError> {
        let Some(quote) = self.peek() else {
            return Err(self.error("expected a quote"));
        };
        self.at += 1;
        let mut text = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(self.error(format!("the quoted text is not closed: add `{quote}`")));
                }
                Some(c) if c == quote => {
                    self.at += 1;
                    return Ok(text);
                }
                Some('\\') if quote == '"' => {
                    self.at += 1;
                    match self.peek() {
                        Some(c @ ('"' | '\\')) => text.push(c),
                        _ => {
                            return Err(
                                self.error("in a \"…\" text only `\\\"` and `\\\\` are escapes")
                            );
                        }
                    }
                    self.at += 1;
                }
                Some(c) => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
    }

    /// `key=value` inside brackets; the cursor is on the key.
    fn selector(&mut self) -> Result<Segment, PathError> {
        let start = self.at;
        while self.peek().is_some_and(|c| !ends_bare_key(c) && c != '=') {
            self.at += 1;
        }
        let key: String = self.chars[start..self.at].iter().map(|&(_, c)| c).collect();
        match self.peek() {
            Some('=') => self.at += 1,
            Some(']') => {
                return Err(self.error(format!(
                    "`[{key}]` is neither an index nor a selector: write `[0]`, `[{key}=…]` to pick the item whose `{key}` is …, or `[\"{key}\"]` for a key"
                )));
            }
            Some(c) => return Err(self.error(format!("expected `=` after `{key}`, found `{c}`"))),
            None => return Err(self.error(format!("expected `={{value}}]` after `[{key}`"))),
        }
        let value = match self.peek() {
            Some('"' | '\'') => self.quoted()?,
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| !ends_selector_value(c)) {
                    self.at += 1;
                }
                self.chars[start..self.at].iter().map(|&(_, c)| c).collect()
            }
        };
        if value.is_empty() {
            return Err(self.error(format!(
                "the selector `[{key}=…]` has no value; quote an empty one as `[{key}=\"\"]`"
            )));
        }
        Ok(Segment::Select { key, value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> YamlPath {
        match YamlPath::parse(text) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    fn yaml(text: &str) -> serde_yaml::Value {
        crate::yaml::testing::parsed(text)
    }

    #[test]
    fn dotted_keys_and_indexes_read_as_the_course_writes_them() {
        assert_eq!(
            path("spec.template.spec.containers[0].image").segments(),
            &[
                Segment::Key("spec".into()),
                Segment::Key("template".into()),
                Segment::Key("spec".into()),
                Segment::Key("containers".into()),
                Segment::Index(0),
                Segment::Key("image".into()),
            ]
        );
    }

    #[test]
    fn quoted_keys_keep_their_dots_and_slashes() {
        let p = path(r#"metadata.annotations["argocd.argoproj.io/sync-wave"]"#);
        assert_eq!(
            p.segments()[2],
            Segment::Key("argocd.argoproj.io/sync-wave".into())
        );
        let single = path("configs.cm['resource.customizations.health.argoproj.io_Application']");
        assert_eq!(
            single.segments()[2],
            Segment::Key("resource.customizations.health.argoproj.io_Application".into())
        );
    }

    #[test]
    fn display_writes_the_path_back() {
        for text in [
            "migration.enabled",
            "spec.template.spec.containers[0].image",
            r#"configs.cm["resource.customizations.health.argoproj.io_Application"]"#,
            r#"metadata.annotations["argocd.argoproj.io/sync-wave"]"#,
            r#"["a key"].b[2][3]"#,
            r#"x["say \"hi\" \\ now"]"#,
            "spec.containers[name=checkout].image",
            r#"env[name="A B"].value"#,
            "ports[containerPort=8080]",
        ] {
            let p = path(text);
            assert_eq!(p.to_string(), text);
            assert_eq!(path(&p.to_string()), p);
        }
        // Single quotes are accepted and written back in the canonical double-quoted form.
        assert_eq!(path("a['b.c']").to_string(), r#"a["b.c"]"#);
    }

    #[test]
    fn errors_say_where_and_what_was_expected() {
        let cases = [
            ("", 1, "empty"),
            ("a..b", 3, "expected a key after `.`"),
            ("a.", 3, "expected a key after `.`"),
            ("a.[0]", 3, "without the dot"),
            ("a[", 3, "ends after `[`"),
            ("a[x]", 4, "neither an index nor a selector"),
            ("a[name=]", 8, "has no value"),
            ("a[name=x", 9, "expected `]`"),
            ("a[=x]", 3, "item selector"),
            ("a[name x]", 7, "expected `=`"),
            ("a[0", 4, "expected `]`"),
            ("a[\"b", 5, "not closed"),
            ("a[-1]", 3, "list indexes count from 0"),
            (".a", 1, "starts with a key"),
            ("a b", 2, "expected `.`, `[`"),
            ("a[0]b", 5, "expected `.`, `[`"),
            ("a[99999999999999999999999]", 3, "too large"),
        ];
        for (text, position, words) in cases {
            let error = match YamlPath::parse(text) {
                Ok(p) => panic!("`{text}` parsed as {p:?}"),
                Err(e) => e,
            };
            assert_eq!(error.position, position, "{text}: {error}");
            assert!(error.message.contains(words), "{text}: {error}");
        }
    }

    #[test]
    fn lookup_finds_values_in_yaml_and_json() {
        let doc = yaml(
            "metadata:\n  annotations:\n    argocd.argoproj.io/sync-wave: \"-1\"\nspec:\n  containers:\n    - image: podinfo:6.7.1\n",
        );
        let wave = path(r#"metadata.annotations["argocd.argoproj.io/sync-wave"]"#);
        assert_eq!(wave.lookup(&doc), Some(&serde_yaml::Value::from("-1")));
        let image = path("spec.containers[0].image");
        assert_eq!(
            image.lookup(&doc).and_then(|v| v.as_str()),
            Some("podinfo:6.7.1")
        );
        assert_eq!(path("spec.containers[1].image").lookup(&doc), None);
        assert_eq!(path("spec.containers.image").lookup(&doc), None);

        let json = serde_json::json!({"spec": {"containers": [{"image": "podinfo:6.7.1"}]}});
        assert_eq!(
            image.lookup_json(&json),
            Some(&serde_json::json!("podinfo:6.7.1"))
        );
        assert_eq!(path("spec.containers[0].name").lookup_json(&json), None);
    }

    #[test]
    fn deepest_existing_names_the_part_that_is_there() {
        let doc = yaml("migration:\n  fail: true\n");
        assert_eq!(
            path("migration.enabled")
                .deepest_existing(&doc)
                .map(|p| p.to_string()),
            Some("migration".to_string())
        );
        assert_eq!(path("smokeTest.enabled").deepest_existing(&doc), None);
    }

    #[test]
    fn a_bad_path_in_a_check_file_is_an_error_with_its_line() {
        #[derive(Debug, serde::Deserialize)]
        struct Holder {
            #[serde(rename = "path")]
            _path: YamlPath,
        }
        let error = match serde_yaml::from_str::<Holder>("\n\npath: a..b\n") {
            Ok(h) => panic!("parsed {h:?}"),
            Err(e) => e,
        };
        assert_eq!(error.location().map(|l| l.line()), Some(3));
        assert!(error.to_string().contains("expected a key after `.`"));
    }
}
