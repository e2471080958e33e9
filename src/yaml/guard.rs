//! Cheap looks at YAML text before the parser sees it, and plain words for the parser's errors.
//!
//! The YAML parser's time grows with the square of the nesting depth (100 000 levels of `[` in
//! 200 KB took minutes), and its recursion limit is only checked after the whole text was scanned.
//! [`check_depth`] walks the text once, in linear time, and refuses anything nested deeper than
//! [`MAX_DEPTH`] before a parser is started. Real course and values files nest fewer than 20 levels.

/// The deepest nesting labcheck parses (flow brackets plus block indentation levels).
pub const MAX_DEPTH: usize = 100;

/// Where the text nests deeper than [`MAX_DEPTH`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    pub line: usize,
    pub column: usize,
}

impl TooDeep {
    /// The words for a message.
    pub fn message(&self) -> String {
        format!(
            "the YAML is nested more than {MAX_DEPTH} levels deep here, deeper than labcheck reads (a values or check file nests a few levels): check that this is the file you meant, and write it with less nesting"
        )
    }
}

/// Refuse text nested deeper than [`MAX_DEPTH`] (an estimate that never undercounts brackets:
/// quoted text and comments are skipped, block levels are counted by indentation and `- `).
pub fn check_depth(text: &str) -> Result<(), TooDeep> {
    // Indentation columns of the open block levels.
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    for (index, line) in text.split('\n').enumerate() {
        let line_no = index + 1;
        let bytes = line.as_bytes();
        let mut i = 0;
        if flow == 0 {
            // Block structure: the indentation, then any `- ` entries opening a level each.
            while i < bytes.len() && bytes[i] == b' ' {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] == b'#' || bytes[i] == b'\r' {
                continue;
            }
            let mut column = i;
            loop {
                while indents.last().is_some_and(|&top| top > column) {
                    indents.pop();
                }
                if indents.last() != Some(&column) {
                    indents.push(column);
                }
                if indents.len() > MAX_DEPTH {
                    return Err(TooDeep {
                        line: line_no,
                        column: column + 1,
                    });
                }
                let dash = bytes.get(i) == Some(&b'-')
                    && matches!(bytes.get(i + 1), Some(b' ') | Some(b'\t') | None);
                if !dash {
                    break;
                }
                i += 1;
                while i < bytes.len() && bytes[i] == b' ' {
                    i += 1;
                }
                if i >= bytes.len() {
                    break;
                }
                column = i;
            }
        }
        let mut quote: Option<u8> = None;
        let mut previous = b' ';
        while i < bytes.len() {
            let b = bytes[i];
            match quote {
                Some(q) => {
                    if b == q {
                        quote = None;
                    } else if q == b'"' && b == b'\\' {
                        i += 1;
                    }
                }
                None => match b {
                    b'"' | b'\'' if matches!(previous, b' ' | b'[' | b'{' | b',' | b':') => {
                        quote = Some(b)
                    }
                    b'#' if matches!(previous, b' ' | b'\t') => break,
                    b'[' | b'{' => {
                        flow += 1;
                        if flow + indents.len() > MAX_DEPTH {
                            return Err(TooDeep {
                                line: line_no,
                                column: line[..i].chars().count() + 1,
                            });
                        }
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            previous = b;
            i += 1;
        }
    }
    Ok(())
}

/// A `<<:` merge key at the start of a block mapping entry: its line and column.
pub fn find_merge_key(text: &str) -> Option<(usize, usize)> {
    for (index, line) in text.split('\n').enumerate() {
        let rest = line.trim_start_matches([' ', '-']);
        let rest = rest.trim_start();
        if rest.starts_with("<<:") || rest.starts_with("<< :") || rest.starts_with("{<<:") {
            let column = line.len() - rest.len() + 1;
            return Some((index + 1, column));
        }
    }
    None
}

/// The second occurrence of block key `key` in the same mapping (same indentation, no
/// shallower line in between), as line and column: serde_yaml names a duplicate key but points at
/// the start of its map.
pub fn find_duplicate_key(text: &str, key: &str) -> Option<(usize, usize)> {
    if let Some(repeated) = repeated_key(text)
        && repeated.key.as_deref() == Some(key)
    {
        return Some((repeated.line, repeated.column));
    }
    // Key columns seen, per indentation column, since the last shallower line.
    let mut seen: Vec<(usize, Vec<String>)> = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut rest = &line[indent..];
        let mut column = indent;
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        // `- key:` starts a new map at the column after the dash.
        let mut new_map = false;
        while let Some(after) = rest.strip_prefix("- ") {
            let trimmed = after.trim_start_matches(' ');
            column += rest.len() - trimmed.len();
            rest = trimmed;
            new_map = true;
        }
        seen.retain(|(c, _)| *c < column || (*c == column && !new_map));
        let Some((name, _)) = rest.split_once(':') else {
            continue;
        };
        let name = name.trim().trim_matches(['"', '\'']).to_string();
        if name.is_empty() || name.contains(['{', '[', ' ']) {
            continue;
        }
        match seen.iter_mut().find(|(c, _)| *c == column) {
            Some((_, keys)) => {
                if keys.contains(&name) && name == key {
                    return Some((index + 1, column + 1));
                }
                keys.push(name);
            }
            None => seen.push((column, vec![name])),
        }
    }
    None
}

/// A key written twice in one map, at its second place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedKey {
    pub line: usize,
    pub column: usize,
    /// The key, when it is a scalar.
    pub key: Option<String>,
}

/// The first key `text` writes twice in one map, in any map, block or flow (`{a: 1, a: 2}`), at
/// the second one. serde reports a repeated field at the start of its map, and a map read into
/// a Rust map keeps the last value without a word; this reads the text with a parser that keeps
/// each key's position (serde-saphyr, which kube already uses for kubeconfigs). Anything else
/// that parser refuses is left to the course file's own parser.
pub fn repeated_key(text: &str) -> Option<RepeatedKey> {
    let mut options = serde_saphyr::Options::default();
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    options.with_snippet = false;
    // Keys repeated inside an alias's copy are repeated in its anchor too: no need to replay
    // many copies (an alias bomb would take minutes; the course parser names it).
    options.alias_limits.max_total_replayed_events = 10_000;
    let mut error =
        serde_saphyr::from_str_with_options::<serde::de::IgnoredAny>(text, options).err()?;
    loop {
        error = match error {
            serde_saphyr::Error::WithSnippet { error, .. }
            | serde_saphyr::Error::AliasError { error, .. } => *error,
            serde_saphyr::Error::DuplicateMappingKey { key, location } => {
                return Some(RepeatedKey {
                    line: usize::try_from(location.line()).ok()?,
                    column: usize::try_from(location.column()).ok()?,
                    key,
                });
            }
            _ => return None,
        };
    }
}

/// Plain words for what the YAML parser said, when it said it in parser terms. `at` is the
/// character at the error's position, if known.
pub fn explain(message: &str, at: Option<char>) -> Option<&'static str> {
    if at == Some('\t') || message.contains("tab character") {
        return Some("tab characters cannot indent YAML; indent with spaces");
    }
    if message.contains("repetition limit exceeded") {
        return Some(
            "anchors and aliases (`&x`, `*x`) here expand to more than labcheck reads (an alias bomb); write the values out plainly",
        );
    }
    if message.contains("recursion limit exceeded") {
        return Some("the YAML is nested too deeply for labcheck to read");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_bomb_is_not_expanded_while_looking_for_repeated_keys() {
        let mut text = "checks:\n".to_string();
        for i in 0..9 {
            let value = if i == 0 {
                "[k, k, k, k, k, k, k, k, k, k]".to_string()
            } else {
                format!("[{}]", vec![format!("*a{}", i - 1); 10].join(", "))
            };
            text.push_str(&format!("  - id: c{i}\n    equals: &a{i} {value}\n"));
        }
        let started = std::time::Instant::now();
        assert_eq!(repeated_key(&text), None);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_key_written_twice_is_found_at_its_second_place_in_block_and_flow_maps() {
        for (text, line, column, key) in [
            ("a: 1\nb: 2\na: 3\n", 3, 1, "a"),
            (
                "checks:\n  - id: x\n    git: {repo: a, branch: main, repo: b}\n",
                3,
                34,
                "repo",
            ),
            ("m:\n  k: 1\n  j: [1, {x: 1, x: 2}]\n", 3, 17, "x"),
            ("tracks:\n  kind: a\n  k3d: b\n  kind: c\n", 4, 3, "kind"),
            ("\"title\": a\ntitle: b\n", 2, 1, "title"),
        ] {
            assert_eq!(
                repeated_key(text),
                Some(RepeatedKey {
                    line,
                    column,
                    key: Some(key.to_string())
                }),
                "{text}"
            );
        }
        for fine in [
            "a: 1\nb: {a: 1}\n",
            "- a: 1\n- a: 2\n",
            "a: [1, 1]\n",
            "[unclosed\n",
        ] {
            assert_eq!(repeated_key(fine), None, "{fine}");
        }
    }

    #[test]
    fn ordinary_files_pass_and_deep_nesting_is_refused_in_linear_time() {
        let ordinary = "a:\n  b:\n    - c: [1, {d: \"[[[[\"}]\n    - - x\n      - y # [[[[\n";
        assert_eq!(check_depth(ordinary), Ok(()));
        let flow = format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let started = std::time::Instant::now();
        assert_eq!(
            check_depth(&flow),
            Err(TooDeep {
                line: 1,
                column: 3 + MAX_DEPTH
            })
        );
        let dashes = format!("{}x\n", "- ".repeat(100_000));
        assert!(check_depth(&dashes).is_err());
        let mut block = String::new();
        for i in 0..200 {
            block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        assert!(matches!(
            check_depth(&block),
            Err(TooDeep { line: 101, .. })
        ));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn merge_and_duplicate_keys_are_found_at_their_line() {
        let text = "base: &b {x: 1}\nchecks:\n  - <<: *b\n    id: a\n";
        assert_eq!(find_merge_key(text), Some((3, 5)));
        let dup = "format: v\ntitle: a\nchecks:\n  - id: x\n    title: y\n  - id: z\n    title: w\ntitle: b\n";
        assert_eq!(find_duplicate_key(dup, "title"), Some((8, 1)));
        let inner = "checks:\n  - id: x\n    id: y\n";
        assert_eq!(find_duplicate_key(inner, "id"), Some((3, 5)));
        assert_eq!(find_duplicate_key("a: 1\nb:\n  a: 2\n", "a"), None);
    }
}
