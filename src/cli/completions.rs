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
    let mut out = Vec::new();
    clap_mangen::Man::new(command_with_course())
        .render(&mut out)
        .map_err(|e| Error::Environment(format!("cannot write the man page: {e}")))?;
    emit(&String::from_utf8_lossy(&out));
    Ok(exit::PASS)
}
