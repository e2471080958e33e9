//! What waiting looks like: the note under a check that was waited for ("gave up after 90 s:
//! still Running"), and the progress while labcheck waits — one line per state change where
//! stderr is a log (CI), one status line that fits the terminal where a person watches.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::outcome::{Outcome, WaitEnd};
use crate::run::WaitProgress;

/// Whole seconds as a person reads them: `90 s`.
pub fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64().round() as u64)
}

/// The line a report shows about how labcheck waited for a failing check: why it gave up or
/// stopped. `None` when it was not waited for or got there.
pub fn note(outcome: &Outcome) -> Option<String> {
    let waited = outcome.waited.as_ref()?;
    match &waited.end {
        WaitEnd::Reached => None,
        WaitEnd::TimedOut => Some(format!(
            "gave up after {}: still {}",
            seconds(waited.waited),
            outcome.observed()
        )),
        WaitEnd::Final(because) if waited.waited < Duration::from_secs(1) => {
            Some(format!("did not wait: {because}"))
        }
        WaitEnd::Final(because) => Some(format!(
            "stopped waiting after {}: {because}",
            seconds(waited.waited)
        )),
    }
}

/// Where progress goes while labcheck waits.
pub enum Progress {
    /// Nothing (a machine format on stdout with nobody watching, or `--quiet`).
    Silent,
    /// One line per state change, with the elapsed time: for logs, where a redrawn line would
    /// be noise ("12s step-4 app-phase: Running → Failed").
    Lines(Mutex<Lines>),
    /// One status line on a terminal, redrawn in place and wiped at the end.
    Line(ProgressBar),
}

/// The writer of progress lines and the steps whose wait it has announced.
pub struct Lines {
    out: Box<dyn Write + Send>,
    announced: Vec<String>,
}

impl Progress {
    /// The progress for a run whose terminal report is `printed`, on stderr: a status line where
    /// a person watches it, one line per state change where stderr is a log (CI), nothing for a
    /// machine format nobody watches.
    pub fn on_stderr(printed: super::Format) -> Progress {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            Progress::lines(Box::new(std::io::stderr()))
        } else if printed == super::Format::Human {
            Progress::terminal()
        } else {
            Progress::Silent
        }
    }

    /// Lines to `out` (stderr when it is not a terminal).
    pub fn lines(out: Box<dyn Write + Send>) -> Progress {
        Progress::Lines(Mutex::new(Lines {
            out,
            announced: Vec::new(),
        }))
    }

    /// A status line on stderr, as wide as the terminal.
    pub fn terminal() -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        // `wide_msg` cuts the message to the terminal's width: the line never wraps, so it is
        // always redrawn and wiped in place.
        let style = ProgressStyle::with_template("  {spinner} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .tick_chars("|/-\\ ");
        bar.set_style(style);
        Progress::Line(bar)
    }

    /// Show one progress report of the runner.
    pub fn show(&self, p: &WaitProgress) {
        match self {
            Progress::Silent => {}
            Progress::Lines(lines) => {
                let mut lines = lines.lock().unwrap_or_else(|e| e.into_inner());
                let mut text = Vec::new();
                if !p.waiting_for.is_empty() && !lines.announced.iter().any(|s| s == p.step) {
                    lines.announced.push(p.step.to_string());
                    text.push(format!(
                        "{}s {}: waiting up to {}s for {}",
                        p.elapsed.as_secs(),
                        p.step,
                        p.limit.as_secs(),
                        p.waiting_for.join(", ")
                    ));
                }
                text.extend(change_lines(p));
                for line in text {
                    // Progress is a courtesy: a closed stderr must not end the run.
                    let _ = writeln!(lines.out, "{line}");
                }
                let _ = lines.out.flush();
            }
            Progress::Line(bar) => {
                if p.done {
                    return;
                }
                bar.set_message(status_line(p));
                bar.tick();
            }
        }
    }

    /// Wipe the status line (at the end, and on Ctrl-C); lines stay, they are the log.
    pub fn finish(&self) {
        if let Progress::Line(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// `12s step-4 app-phase: Running → Failed`, one per change.
pub fn change_lines(p: &WaitProgress) -> Vec<String> {
    p.changes
        .iter()
        .map(|c| {
            format!(
                "{}s {} {}: {} → {}",
                p.elapsed.as_secs(),
                p.step,
                c.check,
                c.from,
                c.to
            )
        })
        .collect()
}

/// `waiting for the sync … 12s of 90s` (the terminal cuts it to its width).
pub fn status_line(p: &WaitProgress) -> String {
    format!(
        "{}: waiting for {} … {}s of {}s",
        p.step,
        p.waiting_for.join(", "),
        p.elapsed.as_secs(),
        p.limit.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Waited;
    use crate::run::StateChange;

    #[test]
    fn a_timeout_names_how_long_and_the_state_it_was_still_in() {
        let mut outcome =
            Outcome::fail("the last sync of checkout-dev is Running, expected Succeeded")
                .with_expected("Succeeded")
                .with_actual("Running (PreSync, checkout-migrate)")
                .still_in_progress();
        outcome.waited = Some(Waited {
            waited: Duration::from_millis(90_200),
            end: WaitEnd::TimedOut,
        });
        assert_eq!(
            note(&outcome).as_deref(),
            Some("gave up after 90 s: still Running (PreSync, checkout-migrate)")
        );
        outcome.waited = Some(Waited {
            waited: Duration::from_secs(12),
            end: WaitEnd::Final("the sync finished Failed".to_string()),
        });
        assert_eq!(
            note(&outcome).as_deref(),
            Some("stopped waiting after 12 s: the sync finished Failed")
        );
        outcome.waited = Some(Waited {
            waited: Duration::from_secs(12),
            end: WaitEnd::Reached,
        });
        assert_eq!(note(&outcome), None);
    }

    #[test]
    fn each_state_change_is_one_line_with_the_elapsed_time() {
        let p = WaitProgress {
            step: "step-4",
            elapsed: Duration::from_millis(12_400),
            limit: Duration::from_secs(90),
            waiting_for: vec![],
            changes: vec![StateChange {
                check: "app-phase",
                from: "Running".to_string(),
                to: "Failed".to_string(),
            }],
            done: true,
        };
        assert_eq!(change_lines(&p), ["12s step-4 app-phase: Running → Failed"]);
    }
}
