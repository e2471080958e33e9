//! The course for people: `labcheck list` (modules and steps) and `labcheck status` (the course
//! map from the learner's progress). What is next is decided by [`crate::run::next`].

use std::fmt::Write;

use super::Styles;
use super::human::{Paint, paint};
use crate::course::Course;
use crate::progress::{Learner, day};
use crate::run::next::{PassedOver, Standing, first_open, standings};

/// `labcheck list`: each module with its tracks, each step with its title.
pub fn list(course: &Course) -> String {
    let mut out = String::new();
    for module in &course.modules {
        let _ = writeln!(
            out,
            "{}  {}  (tracks: {})",
            module.manifest.module,
            module.manifest.title,
            module.manifest.tracks.available.join(", ")
        );
        for step in &module.steps {
            let _ = writeln!(out, "  {:<18} {}", step.name, step.title);
        }
    }
    out
}

/// `labcheck status`: each module with its steps, ✓ and the day each passed, the quiz, and what
/// is next.
pub fn map(course: &Course, learner: &Learner, styles: Styles) -> String {
    let progress = &learner.progress;
    let mut out = String::new();
    let mut next = None;
    for module in &course.modules {
        let name = &module.manifest.module;
        let track = learner.track(module, None).unwrap_or("?");
        let standings = standings(module, |step| progress.passed(name, step).is_some());
        let done = standings.iter().filter(|s| **s == Standing::Passed).count();
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
        for (step, standing) in module.steps.iter().zip(&standings) {
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
            let replaced = match standing {
                Standing::Replaced { by } => format!("  (replaced by {by}, which passed)"),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "  {mark} {:<16} {when:<10}  {}{replaced}",
                step.name, step.title
            );
        }
        if next.is_none() {
            next = first_open(module.steps.iter().zip(standings)).map(|s| (name, &s.name));
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
    match next {
        Some((module, step)) => {
            let _ = writeln!(out, "next: {module} {step} — `labcheck next` checks it");
        }
        None => {
            let _ = writeln!(out, "every step of the course passed");
        }
    }
    out
}

/// A step `labcheck next` passed over, and why (one line).
pub fn passed_over(module: &str, step: &str, why: &PassedOver) -> String {
    match why {
        PassedOver::StillPasses => format!("✓ {module} {step} still passes\n"),
        PassedOver::Skipped(reason) => format!("- {module} {step} {}\n", reason.describe()),
        PassedOver::Replaced { by } => {
            format!("- {module} {step} replaced by {by}, which passed\n")
        }
    }
}

/// The step `labcheck next` checks, before its report.
pub fn next_up(module: &str, step: &str, title: &str) -> String {
    format!("next: {module} {step} · {title}\n\n")
}

/// `labcheck next` found nothing left to do.
pub fn all_done() -> String {
    "every step passed; `labcheck status` shows the course map\n".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_shows_a_replaced_step_and_names_the_same_next_step_as_labcheck_next() {
        let course = Course::embedded().expect("the built-in course");
        let learner = Learner::having_passed(&["step-1", "step-2", "step-3", "step-5"]);
        let text = map(&course, &learner, Styles::plain());
        let step_4 = text
            .lines()
            .find(|l| l.contains("step-4"))
            .expect("a line for step 4");
        assert!(
            step_4.contains("(replaced by step-5, which passed)"),
            "{text}"
        );
        assert!(step_4.trim_start().starts_with('·'), "not passed: {text}");
        assert!(
            text.contains("next: module-10 break-it/break — `labcheck next` checks it"),
            "{text}"
        );
        assert!(text.contains("(4 of 7 done, track: kind)"), "{text}");
    }
}
