//! The differential test of labcheck's YAML reader: every file of `tests/fixtures/yaml-corpus/`
//! (BOM, CRLF, anchors, aliases, merge keys, tags, every quoting and block-scalar style, flow maps,
//! several documents, comments everywhere, repeated keys, broken files) is read by labcheck and by
//! the readers Helm and Argo CD use (sigs.k8s.io/yaml and apimachinery, built from Go modules by
//! `scripts/yaml-reader.sh`), and both must read the same values or both refuse the file. Then
//! `labcheck edit` makes an edit in each kind of file: only the lines it names change, and both
//! readers read the edit back as intended.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

use labcheck::yaml::edit::{self, EditError, Placement};
use labcheck::yaml::helm::{UNSURE_QUOTING_TAG, parse_documents};
use labcheck::yaml::path::YamlPath;
use serde_json::{Map, Value as Json};
use serde_yaml::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> PathBuf {
    repo().join("tests/fixtures/yaml-corpus")
}

/// The Go reader, built (or found up to date) under a lock, as the tier's testbin is.
fn go_reader() -> PathBuf {
    let dir = std::env::var_os("YAML_READER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| repo().join("target"))
                .join("yaml-reader")
        });
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let lock_path = dir.with_extension("lock");
    let lock = std::fs::File::create(&lock_path)
        .unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    // SAFETY: flock on a descriptor this function owns; released when `lock` is dropped.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let script = repo().join("scripts/yaml-reader.sh");
    let output = Command::new("bash")
        .arg(&script)
        .env("YAML_READER_DIR", &dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} failed; the YAML differential test needs Go 1.26:\n{}{}",
        script.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    drop(lock);
    dir.join("yaml-reader")
}

/// What the Go readers made of each file, by file name.
fn go_read(files: &[PathBuf]) -> Vec<Json> {
    let output = Command::new(go_reader())
        .args(files)
        .output()
        .expect("run yaml-reader");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("yaml-reader prints JSON"))
        .collect()
}

/// A value as it reaches Helm's templates and Kubernetes: through JSON, every number a float64,
/// every key text. `Err`: a value JSON cannot hold (Go refuses the file then).
fn to_json(value: &Value) -> Result<Json, String> {
    Ok(match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => {
            let f = n.as_f64().ok_or("a number")?;
            if !f.is_finite() {
                return Err(format!("json: unsupported value: {f}"));
            }
            serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number)
        }
        Value::String(s) => Json::String(s.clone()),
        Value::Sequence(items) => Json::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Mapping(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let key = match k {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    other => return Err(format!("unsupported map key {other:?}")),
                };
                out.insert(key, to_json(v)?);
            }
            Json::Object(out)
        }
        Value::Tagged(tagged) if tagged.tag == UNSURE_QUOTING_TAG => {
            return Err(format!("unsure quoting of {:?}", tagged.value));
        }
        Value::Tagged(tagged) => to_json(&tagged.value)?,
    })
}

/// Numbers compared as float64 (Go's JSON prints 1e21 where serde prints 1000000000000000000000).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (x, y) => x == y,
    }
}

/// labcheck's reading in Go's two shapes: Argo CD's documents (empty and null ones dropped) and
/// Helm's values (the first document).
fn labcheck_read(text: &str) -> Result<(Vec<Json>, Json), String> {
    let documents = parse_documents(text).map_err(|e| e.to_string())?;
    let values = to_json(&documents[0])?;
    let documents = documents
        .iter()
        .filter(|d| !d.is_null())
        .map(to_json)
        .collect::<Result<_, _>>()?;
    Ok((documents, values))
}

/// Whether labcheck and Go read `text` alike; the difference in words when not.
fn compare(text: &str, go: &Json) -> Result<(), String> {
    let go_error = go["documents_error"].as_str();
    match (labcheck_read(text), go_error) {
        (Err(_), Some(_)) => Ok(()),
        (Err(ours), None) => Err(format!("labcheck refuses ({ours}), Go reads {go}")),
        (Ok((docs, _)), Some(theirs)) => {
            Err(format!("labcheck reads {docs:?}, Go refuses: {theirs}"))
        }
        (Ok((docs, values)), None) => {
            let go_docs = go["documents"].as_array().cloned().unwrap_or_default();
            if docs.len() != go_docs.len() || !docs.iter().zip(&go_docs).all(|(a, b)| same(a, b)) {
                return Err(format!("documents: labcheck {docs:?}, Go {go_docs:?}"));
            }
            // Helm reads only maps; a file of another shape is refused there, whatever labcheck reads.
            if go["values_error"].is_null() && !same(&values, &go["values"]) {
                return Err(format!("values: labcheck {values}, Go {}", go["values"]));
            }
            Ok(())
        }
    }
}

/// Files the two readers read differently, each with why it is left so (the test fails when one
/// is read alike, so the list stays true).
const KNOWN_DIFFERENCES: &[&str] = &[
    // `!!null ''`: go-yaml reads null; the Rust parser refuses the empty text under the null tag
    // (`invalid value: string "", expected null`): a refusal, never another value. Not seen in a
    // learner's file; fixing it means resolving standard tags in `helm.rs` by hand.
    "tag-null-on-empty-text.yaml",
    // `!!bool yes`: go-yaml reads true (YAML 1.1); the Rust parser refuses `yes` under the bool
    // tag. A refusal, never another value; same fix as above.
    "tag-bool-on-yaml11-word.yaml",
    // `%YAML 1.1` then `---`: Helm reads the values (the whole text to go-yaml); Argo CD splits
    // manifests at `---` lines first and refuses the directive left alone before it. labcheck
    // reads the file as Helm does in both places. No course file has a directive.
    "directive-yaml11.yaml",
    // `1e400`: go-yaml cannot make it a float64 and keeps the text; labcheck refuses it as an
    // infinite number. A refusal, never another value.
    "float-overflow.yaml",
    // Octal and hex integers past 64 bits: Go keeps the hex one as text and its JSON step turns
    // the octal one into 2^63; labcheck reads both as floats. No Kubernetes field takes such a
    // number.
    "int-overflow.yaml",
];

#[test]
fn every_file_of_the_yaml_corpus_reads_as_helm_and_argocd_read_it() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 30, "the corpus is there");
    let go = go_read(&files);
    let mut differences = Vec::new();
    for (file, go) in files.iter().zip(&go) {
        let text = std::fs::read_to_string(file).expect("corpus files are UTF-8");
        let known = KNOWN_DIFFERENCES.iter().any(|k| *k == name(file));
        match (compare(&text, go), known) {
            (Ok(()), false) | (Err(_), true) => {}
            (Err(why), false) => differences.push(format!("{}: {why}", name(file))),
            (Ok(()), true) => differences.push(format!(
                "{}: now read alike; take it out of KNOWN_DIFFERENCES",
                name(file)
            )),
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

fn name(file: &Path) -> String {
    file.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// One edit of a corpus file and what must come of it.
struct Edit {
    what: &'static str,
    file: &'static str,
    document: Option<usize>,
    path: &'static str,
    value: &'static str,
    /// The 1-based lines of the file the edit may change (replace or insert after); empty: refused.
    lines: &'static [usize],
    /// For a refused edit, words its message must hold.
    refused: &'static [&'static str],
}

const EDITS: &[Edit] = &[
    Edit {
        what: "a tag in a file with a BOM",
        file: "bom.yaml",
        document: None,
        path: "image.tag",
        value: "\"6.7.2\"",
        lines: &[2],
        refused: &[],
    },
    Edit {
        what: "a key of the anchored map in a file with a BOM",
        file: "bom-anchors.yaml",
        document: None,
        path: "defaults.enabled",
        value: "false",
        lines: &[3],
        refused: &[],
    },
    Edit {
        what: "a key through an alias is refused naming the alias and its anchor",
        file: "bom-anchors.yaml",
        document: None,
        path: "migration.enabled",
        value: "false",
        lines: &[],
        refused: &["`migration`", "`*defaults`", "`&defaults`", "line 1"],
    },
    Edit {
        what: "a value that is an alias is replaced, the anchor stays",
        file: "anchors-aliases.yaml",
        document: None,
        path: "same",
        value: "bye",
        lines: &[7],
        refused: &[],
    },
    Edit {
        what: "a key in a CRLF file",
        file: "bom-crlf-anchors.yaml",
        document: None,
        path: "defaults.enabled",
        value: "false",
        lines: &[2],
        refused: &[],
    },
    Edit {
        what: "a value in a CRLF file",
        file: "crlf.yaml",
        document: None,
        path: "image.tag",
        value: "6.7.2",
        lines: &[2],
        refused: &[],
    },
    Edit {
        what: "a key next to a merge key",
        file: "merge-keys.yaml",
        document: None,
        path: "migration.pullPolicy",
        value: "Never",
        lines: &[6],
        refused: &[],
    },
    Edit {
        what: "a key the merge key brings is written out",
        file: "merge-keys.yaml",
        document: None,
        path: "migration.image",
        value: "other",
        lines: &[6],
        refused: &[],
    },
    Edit {
        what: "a quoted yes",
        file: "quoting.yaml",
        document: None,
        path: "yes_quoted",
        value: "\"no\"",
        lines: &[5],
        refused: &[],
    },
    Edit {
        what: "an octal",
        file: "quoting.yaml",
        document: None,
        path: "octal",
        value: "644",
        lines: &[7],
        refused: &[],
    },
    Edit {
        what: "a literal block",
        file: "block-scalars.yaml",
        document: None,
        path: "literal",
        value: "\"new\\ntext\\n\"",
        lines: &[1, 2, 3],
        refused: &[],
    },
    Edit {
        what: "a key in a flow map",
        file: "flow-maps.yaml",
        document: None,
        path: "a.b",
        value: "2",
        lines: &[1],
        refused: &[],
    },
    Edit {
        what: "the second document",
        file: "multi-document.yaml",
        document: Some(2),
        path: "metadata.name",
        value: "three",
        lines: &[11],
        refused: &[],
    },
    Edit {
        what: "several documents without --document",
        file: "multi-document.yaml",
        document: None,
        path: "metadata.name",
        value: "three",
        lines: &[],
        refused: &["4 documents"],
    },
    Edit {
        what: "a key between comments",
        file: "comments-everywhere.yaml",
        document: None,
        path: "b.c",
        value: "3",
        lines: &[5],
        refused: &[],
    },
    Edit {
        what: "a key written twice: the one read",
        file: "duplicate-keys.yaml",
        document: None,
        path: "a",
        value: "5",
        lines: &[3],
        refused: &[],
    },
    Edit {
        what: "an item of an indentless list",
        file: "indentless-list.yaml",
        document: None,
        path: "containers[name=app].image",
        value: "y",
        lines: &[3],
        refused: &[],
    },
    Edit {
        what: "a new key in a file with a BOM",
        file: "bom-only-one-key.yaml",
        document: None,
        path: "b",
        value: "2",
        lines: &[1],
        refused: &[],
    },
];

/// The lines of `before` that `after` no longer has where it had them: the changed span, 1-based.
fn changed_lines(before: &str, after: &str) -> Vec<usize> {
    let b: Vec<&str> = before.split_inclusive('\n').collect();
    let a: Vec<&str> = after.split_inclusive('\n').collect();
    let prefix = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = b[prefix..]
        .iter()
        .rev()
        .zip(a[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let end = b.len() - suffix;
    if end > prefix {
        (prefix + 1..=end).collect()
    } else {
        // Only inserted: name the line the new ones follow.
        vec![prefix]
    }
}

#[test]
fn labcheck_edit_changes_only_the_lines_it_names_and_both_readers_read_the_edit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let mut written = Vec::new();
    for e in EDITS {
        let before = std::fs::read_to_string(corpus().join(e.file)).expect("corpus file");
        let path = YamlPath::parse(e.path).expect("path");
        let value: Value = serde_yaml::from_str(e.value).expect("value");
        let made = edit::set(&before, e.document, &path, &value, &Placement::default());
        match (made, e.refused.is_empty()) {
            (Ok(Some(after)), true) => {
                let changed = changed_lines(&before, &after);
                if !changed.iter().all(|l| e.lines.contains(l)) {
                    failures.push(format!(
                        "{}: changed lines {changed:?}, may change {:?}:\n{after}",
                        e.what, e.lines
                    ));
                }
                if before.starts_with('\u{feff}') != after.starts_with('\u{feff}')
                    || before.contains("\r\n") != after.contains("\r\n")
                {
                    failures.push(format!("{}: the BOM or the line ends changed", e.what));
                }
                let documents = parse_documents(&after).expect("labcheck reads its edit");
                let root = &documents[e.document.unwrap_or(0)];
                let read = path.lookup(root).cloned();
                if read.as_ref().map(to_json) != Some(to_json(&value)) {
                    failures.push(format!("{}: labcheck reads {read:?} back", e.what));
                }
                let file = dir.path().join(format!("{}-{}", written.len(), e.file));
                std::fs::write(&file, &after).expect("write");
                written.push((e, file, after));
            }
            (Err(error), false) => {
                let message = error.to_string();
                if let Some(missing) = e.refused.iter().find(|w| !message.contains(*w)) {
                    failures.push(format!(
                        "{}: the refusal `{message}` does not say {missing}",
                        e.what
                    ));
                }
            }
            (other, _) => failures.push(format!("{}: {other:?}", e.what)),
        }
    }
    // Go reads every edited file as labcheck does.
    let files: Vec<PathBuf> = written.iter().map(|(_, f, _)| f.clone()).collect();
    for ((e, _, after), go) in written.iter().zip(go_read(&files)) {
        if let Err(why) = compare(after, &go) {
            failures.push(format!("{} (read back): {why}", e.what));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_edit_refusal_names_the_commands_flag_not_the_check_files_key() {
    let text = "a: 1\n---\na: 2\n";
    let path = YamlPath::parse("a").expect("path");
    let error = edit::set(text, None, &path, &Value::Null, &Placement::default())
        .expect_err("two documents need one named");
    assert!(matches!(error, EditError::Document(_)), "{error:?}");
    assert!(
        error.words("`--document N`").contains("--document N"),
        "{}",
        error.words("`--document N`")
    );
    assert!(!error.words("`--document N`").contains("document:"));
}
