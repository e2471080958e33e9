//! Finding and reading manifest files: one file, or every `.yaml`, `.yml` and `.json` file under a
//! folder (sorted, `.git` skipped), with the bounds and the stay-inside rule of [`super::files`].

use std::collections::BTreeSet;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

use super::files::{self, FileError, PathShower};

/// Manifest files under `root` at `relative` (a file or a folder; empty for `root` itself), each
/// as (path relative to `root`, text). A folder without manifests gives an empty list.
pub fn read_manifests(
    root: &Path,
    relative: &str,
    shower: &PathShower,
) -> Result<Vec<(String, String)>, FileError> {
    let trimmed = relative.trim_end_matches('/');
    let target = under(root, trimmed);
    if !root.is_dir() {
        return Err(FileError::RepoMissing {
            shown: shower.show(root),
        });
    }
    if !target.is_dir() {
        let text = files::read_repo_file(root, trimmed, shower)?;
        return Ok(vec![(trimmed.to_string(), text)]);
    }
    let prefix = glob_prefix(root, &target, trimmed);
    read_matching(
        root,
        &target,
        &[format!("{prefix}**/*.{{yaml,yml,json}}")],
        shower,
    )
}

/// Migration files under a folder, for the `expand-contract` rule: every `.sql` file, and the
/// `.php`, `.rb` and `.py` files in a `migrations` or `db/migrate` folder. A file path is read only
/// when it has one of those extensions. Each as (path relative to `root`, text).
pub fn read_migration_sources(
    root: &Path,
    relative: &str,
    shower: &PathShower,
) -> Result<Vec<(String, String)>, FileError> {
    let trimmed = relative.trim_end_matches('/');
    let target = under(root, trimmed);
    if !target.is_dir() {
        return Ok(Vec::new());
    }
    let prefix = glob_prefix(root, &target, trimmed);
    read_matching(
        root,
        &target,
        &[
            format!("{prefix}**/*.sql"),
            format!("{prefix}**/migrations/**/*.{{php,rb,py}}"),
            format!("{prefix}**/db/migrate/**/*.rb"),
        ],
        shower,
    )
}

/// Every file under `root` that one of `patterns` (made for the folder `target`) matches, read
/// once each, as (path relative to `root`, text): a pattern's files in its sorted order, the
/// patterns in the order given.
fn read_matching(
    root: &Path,
    target: &Path,
    patterns: &[String],
    shower: &PathShower,
) -> Result<Vec<(String, String)>, FileError> {
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for pattern in patterns {
        let glob = compile_glob(pattern, target, shower)?;
        for rel in files::glob_repo_files(root, &glob, shower)? {
            if seen.insert(rel.clone()) {
                let text = files::read_repo_file(root, &rel, shower)?;
                found.push((rel, text));
            }
        }
    }
    Ok(found)
}

/// The glob text that stands for the folder `target` (`trimmed` under `root`): empty for `root`
/// itself, else the folder's path, escaped, and a `/`.
fn glob_prefix(root: &Path, target: &Path, trimmed: &str) -> String {
    if target == root {
        String::new()
    } else {
        format!("{}/", globset_escape(trimmed))
    }
}

/// A glob whose `*` stays inside one folder; a pattern globset refuses is an I/O error about
/// `target`, the folder it was made for.
fn compile_glob(
    pattern: &str,
    target: &Path,
    shower: &PathShower,
) -> Result<GlobMatcher, FileError> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| FileError::Io {
            shown: shower.show(target),
            source: std::io::Error::other(e.to_string()),
        })?
        .compile_matcher())
}

fn globset_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `relative` under `root`; an empty path or `.` is `root` itself.
fn under(root: &Path, relative: &str) -> std::path::PathBuf {
    match relative.trim_end_matches('/') {
        "" | "." => root.to_path_buf(),
        trimmed => root.join(trimmed),
    }
}
