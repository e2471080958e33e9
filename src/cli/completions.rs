//! `labcheck completions SHELL` and `labcheck man`, generated from the clap definitions, with
//! module and step names from the built-in course so a shell can complete them.

use clap::{Args, CommandFactory, builder::PossibleValuesParser};
use clap_complete::Shell;

use super::{Cli, emit};
use crate::course::Course;
use crate::error::{Error, exit};

/// `labcheck completions` options.
#[derive(Debug, Args, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The command line as clap sees it, with the built-in course's module and step names as the
/// values of the positional arguments (only for completions and the man page: a check itself
/// accepts any name and says which exist).
pub fn command_with_course() -> clap::Command {
    let (modules, mut steps) = match Course::embedded() {
        Ok(course) => {
            let modules: Vec<String> = course
                .modules
                .iter()
                .map(|m| m.manifest.module.clone())
                .collect();
            let mut steps: Vec<String> = Vec::new();
            for module in &course.modules {
                for name in module.step_names() {
                    if let Some((exercise, _)) = name.split_once('/') {
                        steps.push(exercise.to_string());
                    }
                    steps.push(name.to_string());
                }
                if module.quiz.is_some() {
                    steps.push(crate::quiz::STEP_NAME.to_string());
                }
            }
            (modules, steps)
        }
        Err(_) => (Vec::new(), Vec::new()),
    };
    steps.sort();
    steps.dedup();
    // clap wants `'static` names; this runs once, only for `completions` and `man`.
    let leak = |names: Vec<String>| -> Vec<&'static str> {
        names
            .into_iter()
            .map(|n| &*Box::leak(n.into_boxed_str()))
            .collect()
    };
    let (modules, steps) = (leak(modules), leak(steps));
    // `mut_arg` moves an argument to the end; positionals keep their place by their explicit
    // `index` in the derive definitions.
    let with = |values: &[&'static str]| {
        let values = values.to_vec();
        move |arg: clap::Arg| {
            if values.is_empty() {
                arg
            } else {
                arg.value_parser(PossibleValuesParser::new(values.clone()))
            }
        }
    };
    Cli::command()
        .mut_arg("module", with(&modules))
        .mut_arg("step", with(&steps))
        .mut_subcommand("next", |sub| sub.mut_arg("module", with(&modules)))
        .mut_subcommand("hint", |sub| {
            sub.mut_arg("module", with(&modules))
                .mut_arg("step", with(&steps))
        })
        .mut_subcommand("solution", |sub| {
            sub.mut_arg("module", with(&modules))
                .mut_arg("step", with(&steps))
        })
}

/// Print the completion script for `shell`.
pub fn run(args: &CompletionsArgs) -> Result<u8, Error> {
    let mut cmd = command_with_course();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "labcheck", &mut out);
    emit(&String::from_utf8_lossy(&out));
    Ok(exit::PASS)
}

/// Print the man page.
pub fn man() -> Result<u8, Error> {
    let page =
        man_page().map_err(|e| Error::Environment(format!("cannot write the man page: {e}")))?;
    emit(&page);
    Ok(exit::PASS)
}

/// The man page: clap_mangen's sections from the command line, then EXAMPLES, EXIT STATUS,
/// ENVIRONMENT and FILES written here (clap's `--help` text would land as one unformatted
/// paragraph).
fn man_page() -> Result<String, std::io::Error> {
    let man = clap_mangen::Man::new(command_with_course());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    let mut page = String::from_utf8_lossy(&out).into_owned();
    let section = |page: &mut String, name: &str, items: &[(String, String)]| {
        page.push_str(&format!(".SH \"{name}\"\n"));
        for (term, text) in items {
            page.push_str(&format!(".TP\n{}\n{}\n", bold(term), roff(text)));
        }
    };
    let items = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    section(&mut page, "EXAMPLES", &items(super::EXAMPLES));
    let codes: Vec<(String, String)> = super::EXIT_CODES
        .iter()
        .map(|(code, text)| (code.to_string(), text.to_string()))
        .collect();
    section(&mut page, "EXIT STATUS", &codes);
    section(&mut page, "ENVIRONMENT", &items(ENVIRONMENT));
    section(&mut page, "FILES", &items(FILES));
    let mut rest = Vec::new();
    man.render_version_section(&mut rest)?;
    page.push_str(&String::from_utf8_lossy(&rest));
    // roff input is ASCII: groff without preconv rejects UTF-8 bytes (`…` in a value name), so
    // every other character is written as roff's Unicode escape.
    Ok(page
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("\\[u{:04X}]", c as u32)
            }
        })
        .collect())
}

/// The environment labcheck reads, for the man page.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "LABCHECK_WORK_DIR",
        "the folder with your work repos, as --work-dir (default ~/work)",
    ),
    (
        "KUBECONFIG",
        "the kubeconfig when --kubeconfig is not given, as kubectl reads it",
    ),
    (
        "HOME",
        "finds ~/work, ~/.kube/config and labcheck's own files",
    ),
    (
        "XDG_STATE_HOME, XDG_CONFIG_HOME",
        "where labcheck keeps its progress and profile",
    ),
    ("NO_COLOR", "no colour (with --color auto)"),
    (
        "CLICOLOR_FORCE, FORCE_COLOR",
        "colour even when stdout is not a terminal (CI logs)",
    ),
    ("TERM", "TERM=dumb: no colour"),
    (
        "LC_ALL, LC_CTYPE, LANG",
        "a terminal whose locale is not UTF-8 gets [ok] and [FAIL] instead of check marks",
    ),
    (
        "LABCHECK_WATCH_POLL",
        "--watch polls the repos instead of using file notifications",
    ),
];

/// The files labcheck reads and the only ones it writes, for the man page.
pub const FILES: &[(&str, &str)] = &[
    ("~/work/REPO", "your work repos, read only"),
    (
        "~/.kube/config",
        "the kubeconfig when neither --kubeconfig nor KUBECONFIG is given; read only",
    ),
    (
        "$XDG_STATE_HOME/labcheck/progress",
        "the steps you passed and your quiz results (default ~/.local/state/labcheck/progress)",
    ),
    (
        "$XDG_CONFIG_HOME/labcheck/profile",
        "your course track (default ~/.config/labcheck/profile)",
    ),
    (
        "FILE of --report FORMAT=FILE, --output FILE",
        "the reports you asked for",
    ),
];

/// `text` in bold, escaped for roff.
fn bold(text: &str) -> String {
    format!("\\fB{}\\fR", roff(text))
}

/// `text` escaped for roff: backslashes, dashes (so `-o` stays a minus), and a leading dot or quote.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
