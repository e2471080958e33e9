//! Finding and reading manifest files: one file, or every `.yaml`, `.yml` and `.json` file under a
//! folder (sorted, `.git` skipped), with the bounds and the stay-inside rule of [`super::files`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use super::files::{self, FileError, PathShower};

/// Manifest files under `root` at `relative` (a file or a folder; empty for `root` itself), each
/// as (path relative to `root`, text). A folder without manifests gives an empty list.
pub fn read_manifests(
    root: &Path,
    relative: &str,
    shower: &PathShower,
) -> Result<Vec<(String, String)>, FileError> {
    if !root.is_dir() {
        return Err(FileError::RepoMissing {
            shown: shower.show(root),
        });
    }
    let at = Under::new(root, relative);
    if !at.target.is_dir() {
        let text = files::read_repo_file(root, at.trimmed, shower)?;
        return Ok(vec![(at.trimmed.to_string(), text)]);
    }
    at.read_matching(&["**/*.{yaml,yml,json}"], shower)
}

/// Migration files under a folder, for the `expand-contract` rule: every `.sql` file, and the
/// `.php`, `.rb` and `.py` files in a `migrations` or `db/migrate` folder. A file path is read only
/// when it has one of those extensions. Each as (path relative to `root`, text).
pub fn read_migration_sources(
    root: &Path,
    relative: &str,
    shower: &PathShower,
) -> Result<Vec<(String, String)>, FileError> {
    let at = Under::new(root, relative);
    if !at.target.is_dir() {
        return Ok(Vec::new());
    }
    at.read_matching(
        &[
            "**/*.sql",
            "**/migrations/**/*.{php,rb,py}",
            "**/db/migrate/**/*.rb",
        ],
        shower,
    )
}

/// A path a reader was given under a repo's `root`: as given without a trailing `/`, and the
/// folder or file it names (`root` itself for an empty path or `.`).
struct Under<'a> {
    root: &'a Path,
    trimmed: &'a str,
    target: PathBuf,
}

impl<'a> Under<'a> {
    fn new(root: &'a Path, relative: &'a str) -> Self {
        let trimmed = relative.trim_end_matches('/');
        let target = match trimmed {
            "" | "." => root.to_path_buf(),
            _ => root.join(trimmed),
        };
        Under {
            root,
            trimmed,
            target,
        }
    }

    /// Every file in the folder that one of `patterns` (relative to the folder) matches, read
    /// once each, as (path relative to `root`, text): a pattern's files in its sorted order, the
    /// patterns in the order given.
    fn read_matching(
        &self,
        patterns: &[&str],
        shower: &PathShower,
    ) -> Result<Vec<(String, String)>, FileError> {
        // The glob text that stands for the folder: empty for `root` itself, else the folder's
        // path, escaped, and a `/`.
        let prefix = if self.target == self.root {
            String::new()
        } else {
            format!("{}/", globset_escape(self.trimmed))
        };
        let mut seen = BTreeSet::new();
        let mut found = Vec::new();
        for pattern in patterns {
            let glob = compile_glob(&format!("{prefix}{pattern}"), &self.target, shower)?;
            for rel in files::glob_repo_files(self.root, &glob, shower)? {
                if seen.insert(rel.clone()) {
                    let text = files::read_repo_file(self.root, &rel, shower)?;
                    found.push((rel, text));
                }
            }
        }
        Ok(found)
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
