//! `labcheck status`: the course map from the learner's progress (no checks run).

use std::fmt::Write;
use std::path::PathBuf;

use clap::Args;

use super::{RunArgs, emit, load_course, warn};
use crate::course::Course;
use crate::error::{Error, exit};
use crate::progress::{Learner, Progress, day};
use crate::report::human::{Paint, paint};
use crate::report::{ColorChoice, Styles};

/// `labcheck status` options.
#[derive(Debug, Args, Clone)]
pub struct StatusArgs {
    /// Read the course from this folder (modules/ and expected/) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,

    /// When to colour output (NO_COLOR is honoured with auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// Print the course map.
pub fn run(args: &StatusArgs) -> Result<u8, Error> {
    let course = load_course(&RunArgs {
        course_dir: args.course_dir.clone(),
        ..RunArgs::default()
    })?;
    let learner = Learner::load();
    warn(&learner.warnings);
    emit(&render(&course, &learner, Styles::decide(args.color)));
    Ok(exit::PASS)
}

/// The map: each module with its steps, ✓ and the day each passed, the quiz, and what is next.
pub fn render(course: &Course, learner: &Learner, styles: Styles) -> String {
    let progress = &learner.progress;
    let mut out = String::new();
    for module in &course.modules {
        let name = &module.manifest.module;
        let track = learner.track(module, None).unwrap_or("?");
        let done = module
            .steps
            .iter()
            .filter(|s| progress.passed(name, &s.name).is_some())
            .count();
        let heading = format!("{name}  {}", module.manifest.title);
        let _ = writeln!(
            out,
            "{}  {}",
            paint(styles, &heading, Paint::Bold),
            paint(
                styles,
                &format!("({done} of {} done, track: {track})", module.steps.len()),
                Paint::Dim
            )
        );
        for (i, step) in module.steps.iter().enumerate() {
            let (mark, when) = match progress.passed(name, &step.name) {
                Some(passed) => (
                    paint(styles, styles.pass_fail().0, Paint::Green),
                    day(passed.at),
                ),
                None => (
                    paint(styles, if styles.ascii { "." } else { "·" }, Paint::Dim),
                    String::new(),
                ),
            };
            let replaced = match replaced_by(module, progress, i) {
                Some(later) if progress.passed(name, &step.name).is_none() => {
                    format!("  (replaced by {later}, which passed)")
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  {mark} {:<16} {when:<10}  {}{replaced}",
                step.name, step.title
            );
        }
        if module.quiz.is_some() {
            let line = match progress.quiz(name) {
                Some(q) => format!(
                    "{} {:<16} {:<10}  {} of {} right",
                    if q.right == q.of {
                        paint(styles, styles.pass_fail().0, Paint::Green)
                    } else {
                        paint(styles, styles.pass_fail().1, Paint::Red)
                    },
                    crate::quiz::STEP_NAME,
                    day(q.at),
                    q.right,
                    q.of
                ),
                None => format!(
                    "{} {:<16} {:<10}  not taken: `labcheck {name} quiz`",
                    paint(styles, "·", Paint::Dim),
                    crate::quiz::STEP_NAME,
                    ""
                ),
            };
            let _ = writeln!(out, "  {line}");
        }
    }
    match first_unfinished(course, progress) {
        Some((module, step)) => {
            let _ = writeln!(out, "next: {module} {step} — `labcheck next` checks it");
        }
        None => {
            let _ = writeln!(out, "every step of the course passed");
        }
    }
    out
}

/// The first step, in course order, that is really unfinished: progress does not show it passed,
/// and no later step that replaces it passed (step 4's failed sync is gone once step 5 passed).
pub fn first_unfinished<'a>(course: &'a Course, progress: &Progress) -> Option<(&'a str, &'a str)> {
    course.modules.iter().find_map(|module| {
        let name = module.manifest.module.as_str();
        (0..module.steps.len())
            .find(|&i| {
                progress.passed(name, &module.steps[i].name).is_none()
                    && replaced_by(module, progress, i).is_none()
            })
            .map(|i| (name, module.steps[i].name.as_str()))
    })
}

/// The later step of the module, passed in `progress`, that replaced step `index`: only a
/// transient step can be replaced (see `transient:` in docs/check-files.md).
pub fn replaced_by<'a>(
    module: &'a crate::course::Module,
    progress: &Progress,
    index: usize,
) -> Option<&'a str> {
    let name = module.manifest.module.as_str();
    let step = module.steps.get(index)?;
    if !step.transient {
        return None;
    }
    module.steps[index + 1..]
        .iter()
        .find(|later| progress.passed(name, &later.name).is_some())
        .map(|later| later.name.as_str())
}
