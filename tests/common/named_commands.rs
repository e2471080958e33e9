//! The commands the project names for its readers: every `PROGRAM …` in backquotes in the
//! course's files, the string literals of labcheck's code (comments left out: they speak to
//! maintainers), the README and the docs. Tests hand each to its program with `--help`, so the
//! program parses the words and runs nothing.

use std::path::{Path, PathBuf};

use regex::Regex;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, ending: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            files_under(&path, ending, out);
        } else if path.to_string_lossy().ends_with(ending) {
            out.push(path);
        }
    }
}

/// A command as written, and where (`file:line`).
pub struct Named {
    pub at: String,
    pub command: String,
}

/// Every backquoted command of one of `programs`.
pub fn named_commands(programs: &[&str]) -> Vec<Named> {
    let quoted = Regex::new(&format!(r"`((?:{}) [^`]*)`", programs.join("|"))).expect("a regex");
    let mut named = Vec::new();
    let mut files = Vec::new();
    files_under(&repo().join("modules"), ".yaml", &mut files);
    files_under(&repo().join("src"), ".rs", &mut files);
    files_under(&repo().join("docs"), ".md", &mut files);
    files.push(repo().join("README.md"));
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let rust = file.extension().is_some_and(|e| e == "rs");
        let yaml = file.extension().is_some_and(|e| e == "yaml");
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if rust && trimmed.starts_with("//") || yaml && trimmed.starts_with('#') {
                continue;
            }
            for found in quoted.captures_iter(line) {
                named.push(Named {
                    at: format!(
                        "{}:{}",
                        file.strip_prefix(repo()).unwrap_or(&file).display(),
                        n + 1
                    ),
                    command: found[1].to_string(),
                });
            }
        }
    }
    named
}

/// The command's own words: up to a pipe, a redirection or the next command, with each `(from,
/// to)` of `fill` replaced and any other placeholder (`{name}` of labcheck's code, `<word>` of
/// the course) as a plain word. `None` for a mention that is not one command (`argocd …`, a
/// synopsis with `[optional]` parts or `a|b` choices), or text no shell would split.
pub fn words(command: &str, fill: &[(&str, &str)]) -> Option<Vec<String>> {
    let cut = [" | ", " >", " && ", "; ", " 2>"]
        .iter()
        .filter_map(|s| command.find(s))
        .min()
        .unwrap_or(command.len());
    let command = &command[..cut];
    if command.contains('…') || command.contains('[') || command.contains('|') {
        return None;
    }
    let mut filled = command.to_string();
    for (from, to) in fill {
        filled = filled.replace(from, to);
    }
    let filled = Regex::new(r"\{[a-z_]*\}|<[a-z]+>")
        .expect("a regex")
        .replace_all(&filled, "x")
        .into_owned();
    shlex::split(&filled)
}

/// The arguments to parse `words` with help asked: `--help` last, or before a flag named last
/// without its value (`argocd app sync --resource`, a mention), which would take it as its value.
pub fn help_args(words: &[String]) -> Vec<&str> {
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let at = match args.last() {
        Some(last) if last.starts_with('-') && !last.contains('=') => args.len() - 1,
        _ => args.len(),
    };
    args.insert(at, "--help");
    args
}

/// Whether a refusal is only of a flag named last without its value (a mention of the flag).
pub fn only_the_last_flags_value_missing(said: &str, words: &[String]) -> bool {
    let missing = said.contains("flag needs an argument") // cobra
        || said.contains("a value is required for"); // clap
    missing && words.last().is_some_and(|w| w.starts_with('-'))
}
