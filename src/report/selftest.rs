//! Reports of `labcheck course test` and `labcheck course lint`, for people and as JSON.

use std::fmt::Write;

use owo_colors::OwoColorize;

use super::Styles;
use crate::selftest::causes::CheckCauses;
use crate::selftest::lint::LintProblem;
use crate::selftest::{ModuleResult, StateKind, StateResult};

/// One line per state, the problems under a state that does not hold, then a summary.
pub fn human_test(modules: &[ModuleResult], styles: Styles) -> String {
    let mut out = String::new();
    for module in modules {
        let _ = writeln!(
            out,
            "{}  (track: {})",
            bold(styles, &format!("course test: {}", module.module)),
            module.track
        );
        for state in &module.states {
            let _ = writeln!(
                out,
                "  {} {:<16} {:<22} {}",
                mark(state.ok(), styles),
                state.step,
                state.state,
                verdict(state)
            );
            for problem in &state.problems {
                let _ = writeln!(out, "      {problem}");
            }
        }
    }
    let states: Vec<&StateResult> = modules.iter().flat_map(|m| &m.states).collect();
    let bad = states.iter().filter(|s| !s.ok()).count();
    let _ = writeln!(
        out,
        "{} states, {} as declared, {bad} not",
        states.len(),
        states.len() - bad
    );
    out
}

fn verdict(state: &StateResult) -> String {
    match (state.kind, state.ok()) {
        (StateKind::Solved, true) => "passes".to_string(),
        (StateKind::Solved, false) => "must pass, but does not".to_string(),
        (StateKind::Broken, true) => format!("fails on {}", state.must_fail.join(", ")),
        (StateKind::Broken, false) => format!("must fail on {} only", state.must_fail.join(", ")),
        (StateKind::SolvedStrayFiles, true) => {
            "passes beside a learner's untracked .env and editor files".to_string()
        }
        (StateKind::SolvedStrayFiles, false) => {
            "must pass beside a learner's untracked files, but does not".to_string()
        }
        (StateKind::Fresh, true) => "no ✓ for what never happened".to_string(),
        (StateKind::Fresh, false) => "a ✓ for what never happened".to_string(),
        (StateKind::WalkBefore, true) => "not done before its solution".to_string(),
        (StateKind::WalkBefore, false) => "done before its solution ran".to_string(),
        (StateKind::Walk, true) => "its solution, run for real, passes".to_string(),
        (StateKind::Walk, false) => "its solution, run for real, does not pass".to_string(),
    }
}

/// `{"status", "modules": [{"module", "track", "states": [...]}]}`.
pub fn json_test(modules: &[ModuleResult]) -> String {
    let ok = modules.iter().all(ModuleResult::ok);
    let document = serde_json::json!({
        "status": if ok { "pass" } else { "fail" },
        "modules": modules.iter().map(|m| serde_json::json!({
            "module": m.module,
            "track": m.track,
            "status": if m.ok() { "pass" } else { "fail" },
            "states": m.states,
        })).collect::<Vec<_>>(),
    });
    format!("{document:#}\n")
}

/// Each problem on its own line, or a one-line all-clear.
pub fn human_lint(modules: usize, problems: &[LintProblem], styles: Styles) -> String {
    let mut out = String::new();
    for problem in problems {
        let _ = writeln!(out, "{} {}", mark(false, styles), problem.message);
    }
    if problems.is_empty() {
        let _ = writeln!(
            out,
            "{} course lint: {modules} module(s), no problems",
            mark(true, styles)
        );
    } else {
        let _ = writeln!(out, "course lint: {} problem(s)", problems.len());
    }
    out
}

/// `{"status", "problems": [{"module", "message"}]}`, and with `--causes`
/// `"causes": [{"module", "step", "check", "kind", "keyed", "default", "labcheck", "none"}]`.
pub fn json_lint(problems: &[LintProblem], causes: &[(String, CheckCauses)]) -> String {
    let mut document = serde_json::json!({
        "status": if problems.is_empty() { "pass" } else { "fail" },
        "problems": problems,
    });
    if !causes.is_empty() {
        document["causes"] = causes
            .iter()
            .map(|(module, row)| {
                let mut value = serde_json::to_value(row).unwrap_or_default();
                value["module"] = serde_json::Value::String(module.clone());
                value
            })
            .collect();
    }
    format!("{document:#}\n")
}

/// `course lint --causes`: per check, the causes it can fail with by the hint that serves them.
pub fn human_causes(causes: &[(String, CheckCauses)], styles: Styles) -> String {
    let mut out = String::new();
    for (module, row) in causes {
        let _ = writeln!(
            out,
            "{} ({})",
            bold(styles, &format!("{module} {} {}", row.step, row.check)),
            row.kind
        );
        for (label, keys) in [
            ("course, keyed", &row.keyed),
            ("course default", &row.default),
            ("labcheck's own", &row.labcheck),
            ("no hint", &row.none),
        ] {
            if !keys.is_empty() {
                let _ = writeln!(out, "  {label:<15} {}", keys.join(", "));
            }
        }
    }
    out
}

fn mark(ok: bool, styles: Styles) -> String {
    match (ok, styles.color) {
        (true, true) => "✓".green().to_string(),
        (false, true) => "✗".red().to_string(),
        (true, false) => "✓".to_string(),
        (false, false) => "✗".to_string(),
    }
}

fn bold(styles: Styles, text: &str) -> String {
    if styles.color {
        text.bold().to_string()
    } else {
        text.to_string()
    }
}
