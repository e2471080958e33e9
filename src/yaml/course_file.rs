//! Reading a file a course author wrote (module.yaml, a step, a fixture, a quiz): a mistake
//! becomes `file:line:col: what was expected`, at the value it is about.

use crate::error::Error;

/// The only format of course files this labcheck reads (`format:` of module.yaml, step files and
/// quizzes); bump it when a change would misread older files.
pub const FORMAT_VERSION: &str = "labcheck/v1";

/// Refuse a course file whose `format:` is not [`FORMAT_VERSION`].
pub fn check_format(file: &str, found: &str) -> Result<(), Error> {
    if found == FORMAT_VERSION {
        Ok(())
    } else {
        Err(Error::CourseContent {
            file: file.to_string(),
            message: format!(
                "has `format: {found}`, but this labcheck reads `format: {FORMAT_VERSION}`; update labcheck or the file"
            ),
        })
    }
}

/// Parse a course file; a mistake becomes `file:line:col: what was expected`. Before the parser
/// runs, the text is checked for nesting too deep to parse in time and for merge keys (which the
/// parser would keep as a key named `<<`); the parser's own terms get plain words.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let at = |line: usize, column: usize, message: String| Error::CourseFile {
        file: file.to_string(),
        line,
        column,
        message,
    };
    if let Err(deep) = crate::yaml::guard::check_depth(text) {
        return Err(at(deep.line, deep.column, deep.message()));
    }
    if let Some((line, column)) = crate::yaml::guard::find_merge_key(text) {
        return Err(at(
            line,
            column,
            "merge keys (`<<: *anchor`) are not read in course files; write the keys out"
                .to_string(),
        ));
    }
    // A repeated key anywhere (a flow map, a map read into a Rust map that would keep the last
    // value silently) is named at the repeat, before serde reports it at its map or not at all.
    if let Some(repeated) = crate::yaml::guard::repeated_key(text) {
        let what = match repeated.key {
            Some(key) => format!("the key `{key}`"),
            None => "this key".to_string(),
        };
        return Err(at(
            repeated.line,
            repeated.column,
            format!("{what} appears twice in this map; keep one"),
        ));
    }
    serde_yaml::from_str(text).map_err(|e| {
        let (mut line, mut column) = crate::yaml::location::line_column(&e);
        let mut message = crate::yaml::location::strip_trailing_location(&e.to_string());
        // A value checked while it was read names itself: point at it, not at its map.
        if let Some((clean, scalar)) = take_marker(&message) {
            if let Some(found) = find_after(text, line, column, &scalar) {
                (line, column) = found;
            }
            message = clean;
        }
        if let Some(key) = message
            .split("duplicate field `")
            .nth(1)
            .and_then(|rest| rest.split('`').next())
            && let Some(found) = crate::yaml::guard::find_duplicate_key(text, key)
        {
            (line, column) = found;
            message = format!("the key `{key}` appears twice in this map; keep one");
        }
        let char_at = text
            .split('\n')
            .nth(line.saturating_sub(1))
            .and_then(|l| l.chars().nth(column.saturating_sub(1)));
        if let Some(words) = crate::yaml::guard::explain(&message, char_at) {
            message = format!("{words} ({message})");
        }
        at(line, column, message)
    })
}

/// Marks the value a message is about, so [`parse_yaml`] can point at it (stripped before shown).
const MARK: char = '\u{1}';

/// A deserializer error about the scalar `value`: `parse_yaml` moves the position to it.
pub fn about_value(value: &str, message: String) -> String {
    format!("{MARK}{value}{MARK}{message}")
}

fn take_marker(message: &str) -> Option<(String, String)> {
    let start = message.find(MARK)?;
    let rest = &message[start + MARK.len_utf8()..];
    let end = rest.find(MARK)?;
    let scalar = rest[..end].to_string();
    let clean = format!("{}{}", &message[..start], &rest[end + MARK.len_utf8()..]);
    Some((clean, scalar))
}

/// The first place `scalar` appears at or after `line`:`column`, as line and column.
fn find_after(text: &str, line: usize, column: usize, scalar: &str) -> Option<(usize, usize)> {
    if scalar.is_empty() {
        return None;
    }
    for (index, content) in text.split('\n').enumerate().skip(line.saturating_sub(1)) {
        let from = if index + 1 == line {
            content
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(content.len(), |(i, _)| i)
        } else {
            0
        };
        if let Some(found) = content[from..].find(scalar) {
            return Some((index + 1, content[..from + found].chars().count() + 1));
        }
    }
    None
}
