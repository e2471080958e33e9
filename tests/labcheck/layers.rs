//! The layers stay as `docs/architecture.md` draws them: every `crate::X` a part of `src/`
//! names must be listed for that part in the document's table. A new arrow fails here until
//! someone decides it in the document (or gives the shared piece a home below both sides).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The table of `docs/architecture.md`: part → the parts it may import.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .expect("docs/architecture.md");
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

/// What each part of `src/` imports: `crate::X` in any of its files, X another part.
fn imported() -> BTreeMap<String, BTreeSet<(String, String)>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mention = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    let mut found: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a src folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let part = rel
                .split('/')
                .next()
                .unwrap()
                .trim_end_matches(".rs")
                .to_string();
            if part == "lib" || part == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for m in mention.captures_iter(&text) {
                let to = m[1].to_string();
                if to != part {
                    found
                        .entry(part.clone())
                        .or_default()
                        .insert((to, rel.clone()));
                }
            }
        }
    }
    found
}

#[test]
fn every_import_between_parts_is_one_the_architecture_document_lists() {
    let allowed = documented();
    assert!(
        allowed.len() > 20,
        "the table of docs/architecture.md was not read"
    );
    let mut undocumented = Vec::new();
    for (part, imports) in imported() {
        let Some(may) = allowed.get(&part) else {
            undocumented.push(format!("`{part}` has no row in docs/architecture.md"));
            continue;
        };
        for (to, file) in imports {
            if !may.contains(&to) {
                undocumented.push(format!(
                    "src/{file} imports crate::{to}, which docs/architecture.md does not list for `{part}`"
                ));
            }
        }
    }
    assert!(undocumented.is_empty(), "{}", undocumented.join("\n"));
}
