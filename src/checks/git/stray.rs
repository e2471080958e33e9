//! Files git does not track, sorted by what they mean for a step: one the step names (its
//! change, not committed yet), one that looks like a secret (it must stay out of git), and the
//! rest (an editor's swap file, `.DS_Store`, a scratch note), which a step never fails on.
//!
//! And the one way a hint adds files: by name (`git add -- FILE…`). A hint that adds everything
//! (`git add -A`) would commit a learner's `.env` and push its password.

use std::sync::LazyLock;

use globset::{Glob, GlobSet, GlobSetBuilder};

/// File names that usually hold a credential: a dotenv file, a private key or certificate
/// store, a cloud or registry login. Matched against the file's name, any folder.
const SECRET_LIKE: &[&str] = &[
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".dockerconfigjson",
    "*credentials*",
    "*secret*",
    "*token*",
    "*password*",
    "*kubeconfig*",
];

static SECRET_NAMES: LazyLock<GlobSet> = LazyLock::new(|| {
    let mut set = GlobSetBuilder::new();
    for pattern in SECRET_LIKE {
        // Each pattern is a literal above; one that fails to build is left out rather than
        // stopping a check.
        if let Ok(glob) = Glob::new(pattern) {
            set.add(glob);
        }
    }
    set.build().unwrap_or_else(|_| GlobSet::empty())
});

/// How many of the untracked files a step leaves alone its note names.
const OTHER_SHOWN: usize = 8;

/// Whether an untracked path looks like it holds a secret (by its file name).
pub(crate) fn looks_secret(path: &str) -> bool {
    let name = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    SECRET_NAMES.is_match(name.as_str())
}

/// Whether the untracked entry `untracked` (a file, or a folder as `dir/`) is, holds, or lies in
/// one of `named`.
pub(crate) fn is_named(untracked: &str, named: &[String]) -> bool {
    named.iter().any(|path| {
        let path = path.trim_start_matches("./");
        let as_dir = format!("{}/", path.trim_end_matches('/'));
        untracked == path
            || (untracked.ends_with('/') && path.starts_with(untracked))
            || untracked.starts_with(&as_dir)
    })
}

/// Whether the step names `path` itself (not only a folder it lies in).
pub(crate) fn names_itself(named: &[String], path: &str) -> bool {
    named.iter().any(|n| n.trim_start_matches("./") == path)
}

/// The untracked files of a repo, split by what they mean for the step.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Untracked<'a> {
    /// Files the step names: its change, made but not added.
    pub(crate) named: Vec<&'a str>,
    /// Files that look like a secret, not named by the step.
    pub(crate) secret_like: Vec<&'a str>,
    /// Everything else: left alone.
    pub(crate) other: Vec<&'a str>,
}

impl<'a> Untracked<'a> {
    /// Sort `untracked` by the step's `named` paths.
    pub(crate) fn sort(untracked: &'a [String], named: &[String]) -> Self {
        let mut sorted = Untracked::default();
        for path in untracked {
            // A folder the step names does not make a secret inside it part of the step: only
            // naming that very file does.
            if is_named(path, named) && (names_itself(named, path) || !looks_secret(path)) {
                sorted.named.push(path);
            } else if looks_secret(path) {
                sorted.secret_like.push(path);
            } else {
                sorted.other.push(path);
            }
        }
        sorted
    }

    /// The note under a passing check: what git does not track and the step leaves alone, and
    /// which of it must stay out of git. `None` when nothing is untracked outside the step.
    pub(crate) fn note(&self, shown: &str) -> Option<String> {
        let mut parts = Vec::new();
        if !self.other.is_empty() {
            // Every untracked file is listed (a `node_modules/` would be thousands): name a few.
            let shown: Vec<&str> = self.other.iter().take(OTHER_SHOWN).copied().collect();
            let more = match self.other.len().saturating_sub(OTHER_SHOWN) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            parts.push(format!(
                "not tracked by git and not part of this step (left out of your commits): {}{more}",
                shown.join(", ")
            ));
        }
        if !self.secret_like.is_empty() {
            let names = self.secret_like.join(", ");
            let exclude = format!("{shown}/.git/info/exclude");
            let hide = match self.secret_like.as_slice() {
                [one] => format!(
                    "echo {} >> {}",
                    crate::shell::quote(one),
                    crate::shell::quote_path(&exclude)
                ),
                many => format!(
                    "printf '%s\\n' {} >> {}",
                    many.iter()
                        .map(|p| crate::shell::quote(p).into_owned())
                        .collect::<Vec<_>>()
                        .join(" "),
                    crate::shell::quote_path(&exclude)
                ),
            };
            parts.push(format!(
                "{names} may hold a secret: keep it out of git, never add it (`{hide}` hides it from `git status` in this clone only)"
            ));
        }
        (!parts.is_empty()).then(|| parts.join("\n"))
    }
}

/// `git add -- FILE…`, each file quoted for a shell; `None` when there is no file to name (a
/// hint then says to add the step's files by name instead of guessing).
pub(crate) fn add_by_name<'a>(files: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let words: Vec<String> = files
        .into_iter()
        .map(|f| crate::shell::quote(f.trim_end_matches('/')).into_owned())
        .collect();
    (!words.is_empty()).then(|| format!("git add -- {}", words.join(" ")))
}

/// Patterns that add everything in a work tree, a secret with it. No hint or solution may hold
/// one (`course lint` refuses them in course files).
pub const ADDS_EVERYTHING: &[&str] = &[
    "git add -A",
    "git add --all",
    "git add .",
    "git add *",
    "git add -u",
    "git add --update",
    "git commit -a",
    "git commit --all",
    "git commit -am",
    "git commit -qam",
];

/// The add-everything pattern a command line holds, if any (whole words: `git add .env` is not
/// `git add .`).
pub fn adds_everything(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | ';' | '(' | ')' | '\'' | '"'))
        .filter(|w| !w.is_empty())
        .collect();
    ADDS_EVERYTHING
        .iter()
        .copied()
        .find(|pattern| {
            let wanted: Vec<&str> = pattern.split(' ').collect();
            words
                .windows(wanted.len())
                .any(|window| window.iter().zip(&wanted).all(|(word, want)| word == want))
        })
        .or_else(|| short_flags_add_all(&words))
}

/// `git commit -qam` and other bundles of short flags that hold `a`; `git add -vA`.
fn short_flags_add_all(words: &[&str]) -> Option<&'static str> {
    words.windows(3).find_map(|w| {
        let bundle = w[0] == "git" && w[2].starts_with('-') && !w[2].starts_with("--");
        match w[1] {
            "commit" if bundle && w[2].contains('a') => Some("git commit -a"),
            "add" if bundle && w[2].contains('A') => Some("git add -A"),
            "add" if bundle && w[2].contains('u') => Some("git add -u"),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_looking_names_are_told_from_editor_and_os_litter() {
        let cases = [
            (".env", true),
            ("config/.env.local", true),
            ("tls/server.pem", true),
            ("id_ed25519", true),
            ("db-password.txt", true),
            ("my-kubeconfig", true),
            (".dev.yaml.swp", false),
            ("helm/dev.yaml~", false),
            (".DS_Store", false),
            ("notes.txt", false),
            ("scratch/", false),
            (".idea/", false),
        ];
        for (path, secret) in cases {
            assert_eq!(looks_secret(path), secret, "{path}");
        }
    }

    #[test]
    fn an_untracked_entry_counts_for_the_step_only_where_the_step_names_it() {
        let named = vec!["manifests/smoke-test.yaml".to_string(), "helm/".to_string()];
        let cases = [
            ("manifests/smoke-test.yaml", true),
            ("manifests/", true),
            ("helm/extra.yaml", true),
            ("manifests/.smoke-test.yaml.swp", false),
            ("notes.txt", false),
            ("manifests-old/", false),
        ];
        for (untracked, expected) in cases {
            assert_eq!(is_named(untracked, &named), expected, "{untracked}");
        }
    }

    #[test]
    fn a_step_file_in_a_new_folder_is_named_by_itself_and_a_secret_beside_it_never() {
        let named = vec!["db/migrations/001.sql".to_string(), "helm/".to_string()];
        let untracked = [
            "db/migrations/001.sql",
            "db/.env",
            "db/notes.txt",
            "helm/extra.yaml",
            "helm/prod.key",
        ]
        .map(String::from);
        let sorted = Untracked::sort(&untracked, &named);
        assert_eq!(sorted.named, ["db/migrations/001.sql", "helm/extra.yaml"]);
        assert_eq!(sorted.secret_like, ["db/.env", "helm/prod.key"]);
        assert_eq!(sorted.other, ["db/notes.txt"]);
        assert_eq!(
            add_by_name(sorted.named.iter().copied()).as_deref(),
            Some("git add -- db/migrations/001.sql helm/extra.yaml")
        );
    }

    #[test]
    fn a_long_list_of_files_the_step_leaves_alone_is_cut_short_in_the_note() {
        let untracked: Vec<String> = (0..20)
            .map(|i| format!("node_modules/m{i:02}.js"))
            .collect();
        let note = Untracked::sort(&untracked, &[])
            .note("~/work/x")
            .unwrap_or_default();
        assert!(note.contains("node_modules/m07.js and 12 more"), "{note}");
        assert!(!note.contains("m08.js"), "{note}");
    }

    #[test]
    fn every_way_of_adding_everything_is_found_and_adding_by_name_is_not() {
        let refused = [
            "cd ~/work/x && git add -A && git commit -m x",
            "git add --all",
            "git add . && git commit",
            "git commit -am \"x\"",
            "git commit -qam x",
            "`git add -A`",
            "git add -vA",
            "git commit -a -m x",
            "git add -u",
        ];
        for command in refused {
            assert!(adds_everything(command).is_some(), "{command}");
        }
        let allowed = [
            "git add -- helm/dev.yaml && git commit -qm x",
            "git add .env.example",
            "git add ./helm/dev.yaml",
            "git commit --amend --no-edit",
            "git commit -qm \"a\"",
            "git add -p helm/dev.yaml",
        ];
        for command in allowed {
            assert_eq!(adds_everything(command), None, "{command}");
        }
    }

    #[test]
    fn adding_by_name_quotes_each_file_and_names_none_when_there_is_none() {
        assert_eq!(
            add_by_name(["helm/dev.yaml", "my file.yaml"]).as_deref(),
            Some("git add -- helm/dev.yaml 'my file.yaml'")
        );
        assert_eq!(add_by_name([]), None);
    }
}
