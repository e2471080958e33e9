//! The layers stay as `docs/architecture.md` draws them. The guard reads every `crate::`,
//! `super::` and `self::` path in `src/` (use lines, their `{…}` groups, and paths in code) and
//! holds four things:
//!
//! - every import from one part to another is a row of the document's table;
//! - every row is used by the part's own code: a row no file uses, or one only its tests use,
//!   fails (a test imports what its part may, and the lab builder `lab`, nothing else);
//! - no two files of one folder import each other, directly or round through others (the
//!   folder's own `mod.rs`, or `x.rs` beside `x/`, is the folder's door and may be named back);
//! - the table itself never goes round, so the parts stand in layers.
//!
//! A new arrow fails here until someone decides it in the document (or gives the shared piece a
//! home below both sides). The checker takes a tree and a table, so the tests below plant each
//! kind of fault in a small made-up tree and see it fail with its own message.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A source tree as the guard reads it: each file's path below `src/` and its text.
type Tree = BTreeMap<String, String>;

/// Part → the parts it may import, as the document's table says.
type Table = BTreeMap<String, BTreeSet<String>>;

/// Parts any part's tests may import besides its own rows: the builder of lab worlds, which the
/// document names as there for the tests.
const TEST_SUPPORT: &[&str] = &["lab"];

/// The table of a document: the rows `| `part` | `a`, `b` |`.
fn table(doc: &str) -> Table {
    doc.lines()
        .filter_map(|line| {
            let mut cells = line.trim().strip_prefix('|')?.split('|');
            let part = cells.next()?.trim().strip_prefix('`')?.strip_suffix('`')?;
            let allowed = cells
                .next()?
                .split(',')
                .filter_map(|c| c.trim().strip_prefix('`')?.strip_suffix('`'))
                .map(str::to_string)
                .collect();
            Some((part.to_string(), allowed))
        })
        .collect()
}

/// The module a file is: `checks/git.rs` and `checks/git/mod.rs` are `[checks, git]`.
fn module_of(file: &str) -> Vec<String> {
    let mut segments: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if segments.last().is_some_and(|s| s == "mod" || s == "lib") {
        segments.pop();
    }
    segments
}

/// Modules declared `#[cfg(test)] mod name;`: their files, and all below them, are test code.
fn test_modules(tree: &Tree) -> BTreeSet<Vec<String>> {
    let declared =
        regex::Regex::new(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_0-9]+)\s*;")
            .expect("a regex");
    let mut found = BTreeSet::new();
    for (file, text) in tree {
        for m in declared.captures_iter(text) {
            let mut module = module_of(file);
            module.push(m[1].to_string());
            found.insert(module);
        }
    }
    found
}

/// A file's code and its inline tests (from a `#[cfg(test)]` line that opens a `mod … {`).
fn code_and_tests(text: &str) -> (&str, &str) {
    let inline = regex::Regex::new(
        r"(?m)^#\[cfg\(test\)\]\s*\n\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+[a-z_]+\s*\{",
    )
    .expect("a regex");
    match inline.find(text) {
        Some(m) => text.split_at(m.start()),
        None => (text, ""),
    }
}

/// `text` without its comment lines: a doc link is not an import.
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a::{b, c::{d, e as f}, self}` as whole paths: `a::b`, `a::c::d`, `a::c::e`, `a`.
fn expand(tree_of_use: &str) -> Vec<String> {
    let text: String = tree_of_use.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = text.find('{') else {
        let path = text.split(" as ").next().unwrap_or_default().trim();
        return vec![path.trim_end_matches("::self").to_string()];
    };
    let prefix = &text[..open];
    let inner = text[open + 1..].trim_end().trim_end_matches('}');
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .flat_map(|item| {
            expand(item)
                .into_iter()
                .map(|path| {
                    format!("{prefix}{path}")
                        .trim_end_matches("::self")
                        .to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every path `text` names from the crate (`crate::`, `super::`, `self::`), as module path
/// segments from the crate's root, for a file that is module `module`.
fn named_paths(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let uses = regex::Regex::new(r"(?s)\buse\s+([^;]+);").expect("a regex");
    let mention =
        regex::Regex::new(r"\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+").expect("a regex");
    let mut paths: Vec<String> = uses
        .captures_iter(text)
        .flat_map(|m| expand(&m[1]))
        .collect();
    let rest = uses.replace_all(text, "");
    paths.extend(mention.find_iter(&rest).map(|m| m.as_str().to_string()));
    paths
        .into_iter()
        .filter_map(|path| {
            let mut segments = path.split("::").map(str::trim);
            let mut base: Vec<String> = match segments.next()? {
                "crate" => Vec::new(),
                "super" => module[..module.len().saturating_sub(1)].to_vec(),
                "self" => module.to_vec(),
                _ => return None,
            };
            for segment in segments {
                match segment {
                    "super" => {
                        base.pop();
                    }
                    "" => {}
                    s => base.push(s.to_string()),
                }
            }
            Some(base)
        })
        .collect()
}

/// One path a file names, with whether it is named by test code.
struct Named {
    file: String,
    module: Vec<String>,
    path: Vec<String>,
    test: bool,
}

fn everything_named(tree: &Tree) -> Vec<Named> {
    let tests = test_modules(tree);
    let mut found = Vec::new();
    for (file, text) in tree {
        if file == "lib.rs" || file == "main.rs" {
            continue;
        }
        let module = module_of(file);
        let test_file = (1..=module.len()).any(|n| tests.contains(&module[..n]));
        let text = without_comments(text);
        let (code, inline_tests) = code_and_tests(&text);
        for (part_text, test) in [(code, test_file), (inline_tests, true)] {
            for path in named_paths(part_text, &module) {
                found.push(Named {
                    file: file.clone(),
                    module: module.clone(),
                    path,
                    test,
                });
            }
        }
    }
    found
}

/// The sets of nodes that reach each other, each with one way round, from `edges`.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &str| -> BTreeMap<String, String> {
        // Each node reached, with the node it was reached from (to walk the way back).
        let mut came_from = BTreeMap::new();
        let mut stack = vec![from.to_string()];
        while let Some(node) = stack.pop() {
            for next in edges.get(&node).into_iter().flatten() {
                if !came_from.contains_key(next) {
                    came_from.insert(next.clone(), node.clone());
                    stack.push(next.clone());
                }
            }
        }
        came_from
    };
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for start in edges.keys() {
        if seen.contains(start) {
            continue;
        }
        let came_from = reach(start);
        if !came_from.contains_key(start) {
            continue;
        }
        // Walk back from `start` to itself: the way round, in order.
        let mut way = vec![start.clone()];
        let mut at = came_from[start].clone();
        while at != *start {
            way.push(at.clone());
            at = came_from[&at].clone();
        }
        way.push(start.clone());
        way.reverse();
        seen.extend(way.iter().cloned());
        found.push(way);
    }
    found
}

/// Everything wrong with `tree` against the table of `doc`, one message a fault.
fn faults(tree: &Tree, doc: &str) -> Vec<String> {
    let allowed = table(doc);
    let parts: BTreeSet<String> = tree
        .keys()
        .map(|f| module_of(f))
        .filter_map(|m| m.first().cloned())
        .filter(|p| p != "main")
        .collect();
    let mut faults = Vec::new();
    // Which files use each row, from code and from tests.
    let mut used: BTreeMap<(String, String), (BTreeSet<String>, BTreeSet<String>)> =
        BTreeMap::new();
    let mut siblings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let file_of: BTreeMap<Vec<String>, String> =
        tree.keys().map(|f| (module_of(f), f.clone())).collect();
    for named in everything_named(tree) {
        let (Some(from), Some(to)) = (named.module.first(), named.path.first()) else {
            continue;
        };
        if from != to && parts.contains(to) {
            let Some(may) = allowed.get(from) else {
                faults.push(format!("`{from}` has no row in docs/architecture.md"));
                continue;
            };
            let support = named.test && TEST_SUPPORT.contains(&to.as_str());
            if !may.contains(to) && !support {
                faults.push(format!(
                    "src/{} imports crate::{to}, which docs/architecture.md does not list for `{from}`",
                    named.file
                ));
            }
            let users = used.entry((from.clone(), to.clone())).or_default();
            if named.test {
                users.1.insert(named.file.clone());
            } else {
                users.0.insert(named.file.clone());
            }
        }
        // A sibling: a module beside this file's, below the same parent, with a file of its own.
        let parent = &named.module[..named.module.len() - 1];
        if !named.test
            && named.path.len() > parent.len()
            && named.path.starts_with(parent)
            && !named.file.ends_with("mod.rs")
        {
            let sibling = named.path[..=parent.len()].to_vec();
            if sibling != named.module
                && let Some(other) = file_of.get(&sibling)
                && !other.ends_with("mod.rs")
            {
                siblings
                    .entry(named.file.clone())
                    .or_default()
                    .insert(other.clone());
            }
        }
    }
    faults.sort();
    faults.dedup();
    for (part, may) in &allowed {
        if !parts.contains(part) {
            faults.push(format!(
                "docs/architecture.md has a row for `{part}`, which is no part of src/"
            ));
        }
        for to in may {
            match used.get(&(part.clone(), to.clone())) {
                Some((code, _)) if !code.is_empty() => {}
                Some((_, tests)) => faults.push(format!(
                    "docs/architecture.md lets `{part}` import `{to}` only for its tests ({}): a test imports what its part may, or `lab`",
                    tests.iter().map(|f| format!("src/{f}")).collect::<Vec<_>>().join(", ")
                )),
                None => faults.push(format!(
                    "docs/architecture.md lets `{part}` import `{to}`, but no file of `{part}` does: a stale row"
                )),
            }
        }
    }
    for way in circles(&siblings) {
        faults.push(format!(
            "files of one folder import each other: {}",
            way.iter()
                .map(|f| format!("src/{f}"))
                .collect::<Vec<_>>()
                .join(" → ")
        ));
    }
    for way in circles(&allowed) {
        faults.push(format!(
            "the table of docs/architecture.md goes round: {}",
            way.join(" → ")
        ));
    }
    faults
}

/// `src/` as it is.
fn this_tree() -> Tree {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut tree = Tree::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a src folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&src).expect("below src");
                let text = std::fs::read_to_string(&path).expect("a source file");
                tree.insert(rel.to_string_lossy().replace('\\', "/"), text);
            }
        }
    }
    tree
}

#[test]
fn every_import_between_parts_is_one_the_architecture_document_lists() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .expect("docs/architecture.md");
    assert!(
        table(&doc).len() > 20,
        "the table of docs/architecture.md was not read"
    );
    let faults = faults(&this_tree(), &doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// A small made-up crate: `top` over `low`, `low` with two files, and the lab builder.
fn planted(extra: &[(&str, &str)]) -> Tree {
    let mut tree: Tree = [
        ("lib.rs", "pub mod top;\npub mod low;\npub mod lab;\n"),
        ("top.rs", "use crate::low::Thing;\n"),
        (
            "low/mod.rs",
            "mod a;\nmod b;\npub use a::Thing;\n#[cfg(test)]\nmod tests;\n",
        ),
        ("low/a.rs", "pub struct Thing;\nuse super::b::Other;\n"),
        ("low/b.rs", "pub struct Other;\n"),
        ("low/tests.rs", "use super::*;\nuse crate::lab::World;\n"),
        ("lab.rs", "use crate::low::Thing;\n"),
    ]
    .into_iter()
    .map(|(f, t)| (f.to_string(), t.to_string()))
    .collect();
    for (file, text) in extra {
        tree.insert(file.to_string(), text.to_string());
    }
    tree
}

/// The made-up crate's table, with `rows` instead of its own where named.
fn planted_table(rows: &[(&str, &str)]) -> String {
    let mut table: BTreeMap<&str, &str> = [("top", "`low`"), ("low", "—"), ("lab", "`low`")].into();
    table.extend(rows.iter().copied());
    let mut doc = "| part | may import |\n|---|---|\n".to_string();
    for (part, may) in table {
        doc.push_str(&format!("| `{part}` | {may} |\n"));
    }
    doc
}

#[test]
fn the_made_up_crate_as_drawn_has_no_fault() {
    assert_eq!(
        faults(&planted(&[]), &planted_table(&[])),
        Vec::<String>::new()
    );
}

#[test]
fn an_import_the_table_does_not_list_fails() {
    let tree = planted(&[("low/b.rs", "use crate::top::Up;\n")]);
    assert_eq!(
        faults(&tree, &planted_table(&[])),
        ["src/low/b.rs imports crate::top, which docs/architecture.md does not list for `low`"]
    );
}

#[test]
fn a_row_no_import_uses_fails_as_stale() {
    assert_eq!(
        faults(&planted(&[]), &planted_table(&[("lab", "`low`, `top`")])),
        ["docs/architecture.md lets `lab` import `top`, but no file of `lab` does: a stale row"]
    );
}

#[test]
fn a_row_only_a_test_uses_fails() {
    let tree = planted(&[(
        "low/tests.rs",
        "use super::*;\nuse crate::top::Up;\nuse crate::lab::World;\n",
    )]);
    assert_eq!(
        faults(&tree, &planted_table(&[("low", "`top`")])),
        [
            "docs/architecture.md lets `low` import `top` only for its tests (src/low/tests.rs): a test imports what its part may, or `lab`",
            "the table of docs/architecture.md goes round: low → top → low",
        ]
    );
    // An inline test module is test code too.
    let tree = planted(&[(
        "low/b.rs",
        "pub struct Other;\n#[cfg(test)]\nmod tests {\n    use crate::top::{self, Up};\n}\n",
    )]);
    let found = faults(&tree, &planted_table(&[("low", "`top`")]));
    assert!(
        found[0].contains("lets `low` import `top` only for its tests (src/low/b.rs)"),
        "{found:?}"
    );
}

#[test]
fn two_files_of_one_folder_that_import_each_other_fail() {
    let tree = planted(&[(
        "low/b.rs",
        "pub struct Other;\nuse super::{a::Thing, mod_item};\n",
    )]);
    assert_eq!(
        faults(&tree, &planted_table(&[])),
        ["files of one folder import each other: src/low/a.rs → src/low/b.rs → src/low/a.rs"]
    );
    // Round through a third file, and by a path in code rather than a use line.
    let tree = planted(&[
        (
            "low/b.rs",
            "pub struct Other;\nfn f() { crate::low::c::go(); }\n",
        ),
        ("low/c.rs", "pub fn go() { let _ = super::a::Thing; }\n"),
    ]);
    assert_eq!(
        faults(&tree, &planted_table(&[])),
        [
            "files of one folder import each other: src/low/a.rs → src/low/b.rs → src/low/c.rs → src/low/a.rs"
        ]
    );
}

#[test]
fn a_table_that_goes_round_fails() {
    let tree = planted(&[("low/b.rs", "pub struct Other;\nuse crate::lab::World;\n")]);
    assert_eq!(
        faults(&tree, &planted_table(&[("low", "`lab`")])),
        ["the table of docs/architecture.md goes round: lab → low → lab"]
    );
}
