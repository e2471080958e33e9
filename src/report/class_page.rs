//! The instructor's room as one HTML page (`labcheck class serve`): where the class is (how many
//! learners at each step), the matrix learner × check per step (✓ ✗ ? -, as the terminal's class
//! view), the failures grouped by cause with their learners and hint, and a learner's full report
//! in the words of their terminal (the human reporter's text). The page is `class_page.html`;
//! this fills its live part, which the server sends again on every change.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::hint::Words;
use super::{Format, Styles};
use crate::class::LearnerRun;
use crate::class::causes::ClassCauses;
use crate::class::server::Renderer;
use crate::class::{Desk, Origin, Reach, Room, at_step};
use crate::outcome::Status;

/// The page around the live part: styles, the dialog for a learner's report, the script that
/// swaps the live part in on each event. No framework, no outside resource.
const PAGE: &str = include_str!("class_page.html");

/// Where the live part goes in [`PAGE`].
const LIVE: &str = "<!--live-->";

/// Where the title goes in [`PAGE`].
const TITLE: &str = "<!--title-->";

/// The page's renderer.
pub struct ClassPage;

impl Renderer for ClassPage {
    fn page(&self, room: &Room) -> String {
        PAGE.replace(TITLE, &escape(&room.title))
            .replace(LIVE, &self.live(room))
    }

    fn live(&self, room: &Room) -> String {
        let desks = room.desks();
        live(&desks, &crate::class::room::causes(&desks))
    }

    fn learner(&self, room: &Room, name: &str) -> Option<String> {
        let desk = room.desks().into_iter().find(|d| d.learner == name)?;
        Some(learner_report(&desk, room.module_run))
    }
}

/// A learner's report as their terminal shows it (no colour), after what the room knows of them.
pub fn learner_report(desk: &Desk, module_run: bool) -> String {
    let mut out = String::new();
    if let Origin::Bundle { file, report } = &desk.origin {
        // The learner's own words from when they made it: nothing in a bundle is run again.
        let _ = writeln!(
            out,
            "from the bundle {} (as the learner's run said when they made it)\n",
            file.display()
        );
        out.push_str(report);
        return out;
    }
    if let Reach::NotAnswering { since, why } = &desk.reach {
        let _ = writeln!(
            out,
            "{}'s cluster has not answered since {}: {why}\n",
            desk.learner,
            clock(*since)
        );
    }
    match &desk.run {
        Some(run) => out.push_str(&super::render(
            &run.steps,
            module_run,
            Format::Human,
            Styles::plain(),
        )),
        None => out.push_str("not checked yet\n"),
    }
    out
}

/// The live part: counts, a matrix per step, the causes (grouped by the class code).
pub fn live(desks: &[Desk], causes: &ClassCauses) -> String {
    let mut out = String::new();
    counts(&mut out, desks);
    let runs: Vec<&LearnerRun> = desks.iter().filter_map(|d| d.run.as_ref()).collect();
    // The steps and their checks as the first finished run has them (the runner may add a
    // check, such as "the break came first", that the course file does not list).
    if let Some(first) = runs.first() {
        for step in &first.steps {
            matrix(&mut out, desks, step);
        }
    }
    causes_html(&mut out, causes);
    out
}

/// "8 learners · at step-4: 3 · done: 2 · checking: 1 · cluster not answering: 1".
fn counts(out: &mut String, desks: &[Desk]) {
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let mut done = 0;
    let mut checking = 0;
    for desk in desks {
        match &desk.run {
            None => checking += 1,
            Some(run) => match at_step(run) {
                Some(step) => *at.entry(step.to_string()).or_default() += 1,
                None => done += 1,
            },
        }
    }
    let down = desks
        .iter()
        .filter(|d| matches!(d.reach, Reach::NotAnswering { .. }))
        .count();
    let _ = write!(
        out,
        "<p class=\"counts\" id=\"counts\"><span>{} learner{}</span>",
        desks.len(),
        plural(desks.len())
    );
    // In course order: the steps as the first finished run lists them.
    let order: Vec<String> = desks
        .iter()
        .find_map(|d| d.run.as_ref())
        .map(|r| r.steps.iter().map(|s| s.step.clone()).collect())
        .unwrap_or_default();
    for step in order {
        if let Some(n) = at.get(&step) {
            let step = escape(&step);
            let _ = write!(
                out,
                " · <span data-at=\"{step}\">at {step}: <b>{n}</b></span>"
            );
        }
    }
    let _ = write!(out, " · <span data-at=\"done\">done: <b>{done}</b></span>");
    if checking > 0 {
        let _ = write!(
            out,
            " · <span data-at=\"checking\">checking: <b>{checking}</b></span>"
        );
    }
    if down > 0 {
        let _ = write!(
            out,
            " · <span class=\"down\" data-at=\"not-answering\">cluster not answering: <b>{down}</b></span>"
        );
    }
    out.push_str("</p>\n");
}

/// One step's matrix: a row per learner, a column per check, the status last.
fn matrix(out: &mut String, desks: &[Desk], step: &crate::run::StepReport) {
    let name = escape(&step.step);
    let _ = writeln!(
        out,
        "<section class=\"step\" data-step=\"{name}\"><h2>{} {name} · {}</h2>",
        escape(&step.module),
        escape(&step.title)
    );
    out.push_str("<table class=\"matrix\"><thead><tr><th scope=\"col\">learner</th>");
    for (n, check) in step.checks.iter().enumerate() {
        let (id, title) = escaped(check);
        let n = n + 1;
        let _ = write!(out, "<th scope=\"col\" title=\"{id}: {title}\">{n}</th>");
    }
    out.push_str("<th scope=\"col\">status</th></tr></thead><tbody>\n");
    for desk in desks {
        let learner = escape(&desk.learner);
        let _ = write!(
            out,
            "<tr data-learner=\"{learner}\"><th scope=\"row\"><button type=\"button\" class=\"learner\" data-learner=\"{learner}\" aria-haspopup=\"dialog\">{learner}</button></th>"
        );
        let theirs = desk
            .run
            .as_ref()
            .and_then(|r| r.steps.iter().find(|s| s.step == step.step));
        for check in &step.checks {
            let found = theirs.and_then(|s| s.checks.iter().find(|c| c.id == check.id));
            match found {
                Some(c) => {
                    let status = c.outcome.status;
                    let _ = write!(
                        out,
                        "<td class=\"mark {}\" data-check=\"{}\" title=\"{}: {}\">{}</td>",
                        status.as_str(),
                        escape(&check.id),
                        escape(&check.id),
                        escape(&c.outcome.summary),
                        mark(status)
                    );
                }
                None => {
                    let _ = write!(
                        out,
                        "<td class=\"mark none\" data-check=\"{}\"></td>",
                        escape(&check.id)
                    );
                }
            }
        }
        out.push_str(&status_cell(desk, theirs));
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n<ol class=\"legend\">");
    for check in &step.checks {
        let (id, title) = escaped(check);
        let _ = write!(out, "<li><code>{id}</code> {title}</li>");
    }
    out.push_str("</ol></section>\n");
}

/// A check's id and title as the page writes them (escaped: a course's words are text).
fn escaped(check: &crate::run::CheckReport) -> (String, String) {
    (escape(&check.id), escape(&check.title))
}

/// A learner's status at one step, with what the room knows: not checked yet, a cluster that
/// does not answer (shown, never dropped), read from a bundle.
fn status_cell(desk: &Desk, step: Option<&crate::run::StepReport>) -> String {
    let mut text = match step {
        Some(step) => format!(
            "<span class=\"status {}\">{}</span>",
            step.status.as_str(),
            step.status.as_str()
        ),
        None => "<span class=\"status checking\">checking…</span>".to_string(),
    };
    if let Reach::NotAnswering { since, .. } = &desk.reach {
        let _ = write!(
            text,
            " <span class=\"down\">cluster not answering since {}</span>",
            clock(*since)
        );
    }
    if let Origin::Bundle { .. } = &desk.origin {
        text.push_str(" <span class=\"note\">bundle</span>");
    }
    // When this state was first seen, not when it was last checked: the live part changes only
    // when a learner's state does (a learner is re-checked at least every 5 s while the page
    // runs), and the full report stays the words of the learner's own terminal.
    let checked = desk
        .since
        .map(|t| format!(" title=\"like this since {}\"", clock(t)))
        .unwrap_or_default();
    format!("<td class=\"state\"{checked}>{text}</td>")
}

/// "By cause": learners without a work dir, then a group per (step, check, cause), as the
/// terminal's class view words them.
fn causes_html(out: &mut String, causes: &ClassCauses) {
    out.push_str("<section class=\"causes\" id=\"causes\"><h2>By cause</h2>\n");
    if causes.is_empty() {
        out.push_str("<p>Every learner passed every check.</p></section>\n");
        return;
    }
    out.push_str("<ul>\n");
    for learner in &causes.without_work_dir {
        let _ = write!(
            out,
            "<li class=\"group error\" data-cause=\"no-work-dir\"><p><b>{}</b>: {} — {} check{} of work repos could not be checked</p>",
            escape(&learner.learner),
            crate::checks::context::NO_WORK_DIR,
            learner.checks,
            plural(learner.checks)
        );
        if let Some(hint) = super::hint::text(&learner.hint) {
            let _ = write!(
                out,
                "<p class=\"hint\">hint: {}</p>",
                escape(hint.trim_end())
            );
        }
        out.push_str("</li>\n");
    }
    for group in &causes.groups {
        let n = group.learners.len();
        let what = if group.status == Status::Error {
            " (could not check)"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<li class=\"group {}\" data-step=\"{}\" data-check=\"{}\" data-cause=\"{}\"><p><b>{n} learner{}</b>: {} {} <code>{}</code> — {}{what}</p><p class=\"who\">{}</p>",
            group.status.as_str(),
            escape(&group.step),
            escape(&group.check),
            escape(&group.cause),
            plural(n),
            escape(&group.step),
            escape(&group.check),
            escape(&group.cause),
            escape(&group.title),
            escape(&group.learners.join(", "))
        );
        if let Some(summary) = &group.summary {
            let _ = write!(
                out,
                "<p class=\"saw\">saw: {}</p>",
                escape(summary.words().trim_end())
            );
        }
        for hint in &group.hints {
            let who = if group.hints.len() == 1 {
                String::new()
            } else {
                format!(" ({})", escape(&hint.learners.join(", ")))
            };
            let _ = write!(
                out,
                "<p class=\"hint\">hint{who}: {}</p>",
                escape(
                    super::hint::text(&hint.parts)
                        .unwrap_or_default()
                        .trim_end()
                )
            );
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul></section>\n");
}

/// The terminal's class marks: ✓ pass, ✗ fail, ? could not check, - skipped.
fn mark(status: Status) -> &'static str {
    match status {
        Status::Pass => "✓",
        Status::Fail => "✗",
        Status::Error => "?",
        Status::Skip => "-",
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The time of day in UTC, as a room reads a clock (`09:41:07Z`).
fn clock(at: jiff::Timestamp) -> String {
    at.strftime("%H:%M:%SZ").to_string()
}

/// Text made safe inside HTML elements and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_a_learners_repo_cannot_become_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }
}
