//! Read a learner's YAML file the way Helm reads a values file, within fixed bounds.
//!
//! Helm parses values with sigs.k8s.io/yaml, i.e. go-yaml v2, which follows YAML 1.1: unquoted
//! `yes`/`no`/`on`/`off`/`y`/`n` (and their `Yes`/`YES` forms) are booleans, `0755` is octal, and
//! `1_000` is 1000. serde_yaml follows YAML 1.2 and reads all of these as text. Quoting decides, and
//! serde_yaml does not report it; but for a one-line unquoted scalar it hands out a slice of the
//! source text itself, so the character just before that slice tells a quoted scalar (`"` or `'`)
//! from a plain one. When that cannot be seen (the text was not borrowed), the word is marked
//! [`UNSURE_QUOTING_TAG`] and conditions only pass if both readings agree: never a guess.
//!
//! Bounds: a file holds at most [`MAX_NODES`] values after aliases are expanded, so an alias bomb
//! is refused instead of filling memory; serde_yaml itself limits nesting depth and alias jumps.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_yaml::value::{Tag, TaggedValue};
use serde_yaml::{Mapping, Value};

use super::location::{line_column, strip_trailing_location};

/// At most this many values (scalars, maps, lists) per file, counting every alias expansion.
/// A large Helm values file has a few thousand.
pub const MAX_NODES: usize = 1_000_000;

/// Marks a YAML 1.1 word (such as `yes`) whose quoting could not be seen.
pub const UNSURE_QUOTING_TAG: &str = "labcheck/unsure-quoting";

/// Why a file could not be read as YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum YamlError {
    /// The text is not valid YAML (Helm would refuse it too): the learner's mistake.
    #[error("line {line} column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The file is valid but too big to read safely (an alias bomb or absurd nesting).
    #[error("{0}")]
    TooComplex(String),
}

/// Texts already parsed in this process, with what parsing gave: several checks of a run read
/// the same values file, and each file is parsed once. Bounded by [`PARSED_CACHE_BYTES`] of text
/// (cleared when full, so a long `--watch` does not grow it).
static PARSED: std::sync::Mutex<Option<(usize, ParsedMap)>> = std::sync::Mutex::new(None);

type ParsedMap = std::collections::HashMap<String, Result<Vec<Value>, YamlError>>;

/// See [`PARSED`].
const PARSED_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// Every document of `text`, read as Helm would read it. An empty file is one `null` document.
/// A text is parsed once per process; later calls get a copy of the first answer.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, YamlError> {
    let cached = PARSED
        .lock()
        .ok()
        .and_then(|guard| guard.as_ref().and_then(|(_, map)| map.get(text).cloned()));
    if let Some(result) = cached {
        return result;
    }
    let result = parse_uncached(text);
    if text.len() <= PARSED_CACHE_BYTES
        && let Ok(mut guard) = PARSED.lock()
    {
        let (bytes, map) = guard.get_or_insert_with(Default::default);
        if *bytes + text.len() > PARSED_CACHE_BYTES {
            map.clear();
            *bytes = 0;
        }
        *bytes += text.len();
        map.insert(text.to_string(), result.clone());
    }
    result
}

fn parse_uncached(text: &str) -> Result<Vec<Value>, YamlError> {
    // go-yaml's reader drops a byte-order mark at the start of the stream before the scanner
    // runs; the Rust parser, given text, leaves it to the scanner, which skips it but counts it
    // as a column, so every top-level key after the first line looked less indented than the
    // first and the file read as broken. Drop it where go-yaml does, so the lines stay the same.
    let text = without_bom(text);
    // The parser's time grows with the square of the depth: refuse absurd nesting before it runs.
    if let Err(deep) = super::guard::check_depth(text) {
        return Err(YamlError::TooComplex(format!(
            "line {}: {}",
            deep.line,
            deep.message()
        )));
    }
    let budget = Cell::new(MAX_NODES);
    let mut documents = Vec::new();
    for document in serde_yaml::Deserializer::from_str(text) {
        let seed = HelmSeed {
            source: text,
            budget: &budget,
        };
        let mut value = seed
            .deserialize(document)
            .map_err(|e| classify(&e, &budget))?;
        // go-yaml v2 applies `<<: *anchor` merge keys; serde_yaml leaves them as plain keys.
        value.apply_merge().map_err(|e| classify(&e, &budget))?;
        documents.push(value);
    }
    if documents.is_empty() {
        documents.push(Value::Null);
    }
    Ok(documents)
}

fn classify(error: &serde_yaml::Error, budget: &Cell<usize>) -> YamlError {
    let message = error.to_string();
    // serde_yaml's limits carry no error kind, only these words.
    if budget.get() == 0
        || message.contains("repetition limit exceeded")
        || message.contains("recursion limit exceeded")
    {
        return YamlError::TooComplex(format!(
            "the YAML expands to more than labcheck reads safely ({}); it holds an alias bomb or is nested too deeply",
            strip_trailing_location(&message)
        ));
    }
    let (line, column) = line_column(error);
    YamlError::Syntax {
        line,
        column,
        message: strip_trailing_location(&message),
    }
}

/// `text` without the byte-order mark an editor may have saved at its start (go-yaml's reader
/// drops it there; anywhere else it is the scanner's, in both parsers).
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// What go-yaml v2 makes of an unquoted scalar that YAML 1.2 reads as text.
pub fn resolve_plain(word: &str) -> Value {
    match word {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Value::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Value::Bool(false);
        }
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if !word.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
        return Value::String(word.to_string());
    }
    let plain = word.replace('_', "");
    if let Some(number) = go_parse_int(&plain) {
        return number;
    }
    if is_yaml11_float(&plain)
        && let Ok(float) = plain.parse::<f64>()
    {
        return Value::Number(float.into());
    }
    match plain.as_str() {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            Value::Number(f64::INFINITY.into())
        }
        "-.inf" | "-.Inf" | "-.INF" => Value::Number(f64::NEG_INFINITY.into()),
        ".nan" | ".NaN" | ".NAN" => Value::Number(f64::NAN.into()),
        _ => Value::String(word.to_string()),
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` then `ParseUint`: a sign, then `0x`/`0o`/`0b` or a leading
/// `0` for octal, else decimal.
fn go_parse_int(text: &str) -> Option<Value> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = rest.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        let value = 0i64.checked_sub_unsigned(magnitude)?;
        Some(Value::Number(value.into()))
    } else {
        Some(Value::Number(magnitude.into()))
    }
}

/// go-yaml v2's float pattern: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml11_float(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && digits(frac),
        Some((int, frac)) => digits(int) && digits(frac),
        None => !mantissa.is_empty() && digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && !mantissa.is_empty() && mantissa != "." && exponent_ok
}

/// Builds a `Value` while counting nodes, and re-reads unquoted text by YAML 1.1 rules.
#[derive(Clone, Copy)]
struct HelmSeed<'s> {
    source: &'s str,
    budget: &'s Cell<usize>,
}

impl HelmSeed<'_> {
    fn spend<E: de::Error>(&self) -> Result<(), E> {
        match self.budget.get().checked_sub(1) {
            Some(left) => {
                self.budget.set(left);
                Ok(())
            }
            None => Err(E::custom(format!(
                "more than {MAX_NODES} values after expanding aliases"
            ))),
        }
    }

    /// How a borrowed scalar was written, from the character before it in the source.
    fn quoting(&self, text: &str) -> Quoting {
        let start = self.source.as_ptr() as usize;
        let at = text.as_ptr() as usize;
        let Some(offset) = at.checked_sub(start) else {
            return Quoting::Unknown;
        };
        if offset + text.len() > self.source.len() {
            return Quoting::Unknown;
        }
        let before = &self.source.as_bytes()[..offset];
        match before.last() {
            Some(b'"' | b'\'') => Quoting::Quoted,
            _ => {
                // `!!str yes` is text however it is quoted: look at the token before the scalar.
                let trimmed = before.trim_ascii_end();
                let token_start = trimmed
                    .iter()
                    .rposition(|b| b.is_ascii_whitespace())
                    .map_or(0, |p| p + 1);
                if trimmed.get(token_start) == Some(&b'!') && trimmed.len() < before.len() {
                    if &trimmed[token_start..] == b"!!binary" {
                        return Quoting::Binary;
                    }
                    Quoting::Tagged
                } else {
                    Quoting::Plain
                }
            }
        }
    }
}

enum Quoting {
    Plain,
    Quoted,
    Tagged,
    /// `!!binary`: go-yaml decodes the base64 text into the bytes it holds.
    Binary,
    Unknown,
}

impl<'de> DeserializeSeed<'de> for HelmSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HelmSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(i.into()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(u.into()))
    }

    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Value, E> {
        self.spend()?;
        // Beyond 64 bits Helm has only a float64 anyway.
        Ok(Value::Number((i as f64).into()))
    }

    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number((u as f64).into()))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(f.into()))
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Value, E> {
        self.spend()?;
        Ok(match self.quoting(text) {
            Quoting::Plain => resolve_plain(text),
            Quoting::Quoted | Quoting::Tagged => Value::String(text.to_string()),
            Quoting::Binary => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|_| E::custom("!!binary value contains invalid base64 data"))?;
                Value::String(String::from_utf8_lossy(&bytes).into_owned())
            }
            Quoting::Unknown => unsure(text),
        })
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Value, E> {
        self.spend()?;
        // Not borrowed: a block scalar, a folded multi-line one or one with escapes. None of these
        // is a one-line plain word, but say so only when both readings would differ.
        Ok(unsure(text))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Value, E> {
        self.visit_str(&text)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut mapping = Mapping::new();
        while let Some(key) = map.next_key_seed(self)? {
            // A key given twice: sigs.k8s.io/yaml reads with go-yaml's non-strict Unmarshal, which
            // keeps the last value (Helm's values, Argo CD's manifests); so does labcheck
            // (measured: tests/labcheck/yaml_readers.rs).
            let value = map.next_value_seed(self)?;
            mapping.insert(key, value);
        }
        Ok(Value::Mapping(mapping))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        self.spend()?;
        let (tag, contents) = data.variant::<String>()?;
        let value = contents.newtype_variant_seed(self)?;
        let tag = if tag.is_empty() { "!".to_string() } else { tag };
        Ok(Value::Tagged(Box::new(TaggedValue {
            tag: Tag::new(tag),
            value,
        })))
    }
}

fn unsure(text: &str) -> Value {
    if resolve_plain(text).is_string() {
        Value::String(text.to_string())
    } else {
        Value::Tagged(Box::new(TaggedValue {
            tag: Tag::new(UNSURE_QUOTING_TAG),
            value: Value::String(text.to_string()),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Value {
        match parse_documents(text) {
            Ok(mut docs) if docs.len() == 1 => docs.remove(0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn yaml_1_1_words_are_booleans_only_when_unquoted() {
        let doc = one("a: yes\nb: \"yes\"\nc: 'no'\nd: Off\ne: [on, 'on']\nf: !!str yes\n");
        assert_eq!(doc["a"], Value::Bool(true));
        assert_eq!(doc["b"], Value::from("yes"));
        assert_eq!(doc["c"], Value::from("no"));
        assert_eq!(doc["d"], Value::Bool(false));
        assert_eq!(
            doc["e"],
            Value::Sequence(vec![Value::Bool(true), Value::from("on")])
        );
        assert_eq!(doc["f"], Value::from("yes"));
    }

    #[test]
    fn numbers_follow_go_yaml_v2() {
        let doc = one(
            "octal: 0755\nunderscore: 1_000\nhex: 0x1F\nfloat: 6.7\nversion: 6.7.1\nzero8: 08\nneg: -0o17\n",
        );
        assert_eq!(doc["octal"], Value::from(493));
        assert_eq!(doc["underscore"], Value::from(1000));
        assert_eq!(doc["hex"], Value::from(31));
        assert_eq!(doc["float"], Value::from(6.7));
        assert_eq!(doc["version"], Value::from("6.7.1"));
        assert_eq!(doc["zero8"], Value::from(8.0));
        assert_eq!(doc["neg"], Value::from(-15));
    }

    #[test]
    fn block_scalars_stay_text() {
        let doc = one("script: |\n  yes\n");
        assert_eq!(doc["script"], Value::from("yes\n"));
    }

    #[test]
    fn escaped_quoted_words_are_marked_unsure_not_guessed() {
        let doc = one("a: \"y\\x65s\"\n");
        match &doc["a"] {
            Value::Tagged(t) => assert!(t.tag == UNSURE_QUOTING_TAG),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn several_documents_and_an_empty_file() {
        let docs = parse_documents("a: 1\n---\nb: 2\n").unwrap_or_default();
        assert_eq!(docs.len(), 2);
        assert_eq!(
            parse_documents("# only a comment\n").unwrap_or_default(),
            vec![Value::Null]
        );
    }

    #[test]
    fn broken_yaml_names_line_and_column() {
        match parse_documents("a: 1\nb: [1, 2\n") {
            Err(YamlError::Syntax { line, .. }) => assert!(line >= 2),
            other => panic!("{other:?}"),
        }
    }

    /// A step's block pasted again at the end of a values file: Helm and Argo CD read the last
    /// one (go-yaml's non-strict reading), and so does labcheck.
    #[test]
    fn a_block_pasted_twice_reads_as_its_last_copy_as_helm_reads_it() {
        let cases = [
            (
                "image:\n  tag: \"6.7.1\"\nmigration:\n  enabled: true\nsmokeTest:\n  enabled: true\nmigration:\n  enabled: false\n",
                "migration.enabled",
                Value::Bool(false),
            ),
            (
                "# dev values\nimage:\n  repository: podinfo\n  tag: \"6.7.0\"\n  tag: \"6.7.1\"\n",
                "image.tag",
                Value::String("6.7.1".into()),
            ),
            (
                "migration: {enabled: true, enabled: false}\n",
                "migration.enabled",
                Value::Bool(false),
            ),
        ];
        for (text, path, want) in cases {
            let path = crate::yaml::path::YamlPath::parse(path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(path.lookup(&one(text)), Some(&want), "{text}");
        }
    }

    #[test]
    fn merge_keys_are_applied_as_helm_does() {
        let doc = one("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n");
        assert_eq!(doc["use"]["x"], Value::from(1));
    }

    #[test]
    fn an_alias_bomb_is_refused_not_expanded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        match parse_documents(&text) {
            Err(YamlError::TooComplex(message)) => assert!(message.contains("alias")),
            other => panic!("{:?}", other.map(|d| d.len())),
        }
    }
}
