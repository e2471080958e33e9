//! The learner's progress: which steps passed when and on which track, how often each check
//! failed, which hint level was shown, quiz results.
//!
//! Progress belongs to the learner whose work repos are checked, so it is kept per work dir: one
//! small plain-text file per canonical work dir under the XDG state dir
//! (`$XDG_STATE_HOME/labcheck/learners/<hash>-<path>.progress`). Only a run on the runner's own
//! work dir writes (see [`workdir`]). One record per line, fields separated by tabs (shown as
//! →), the first line naming the format version:
//!
//! ```text
//! format → labcheck-progress/v1
//! workdir → /home/ana/work
//! passed → module-10 → step-4 → 2025-01-06T09:00:00Z → kind
//! failures → module-10 → step-4 → tag-670 → 2
//! hint → module-10 → step-4 → tag-670 → 2
//! cause → module-10 → step-4 → sync-failed → retrying
//! quiz → module-10 → 2025-01-06T09:30:00Z → 2 → 3 → 1=a,2=b,3=c
//! ```
//!
//! A damaged line costs that line only: the rest is kept, and the damaged file is copied aside
//! once so nothing is lost. A file from a newer labcheck is read-only for this one.

pub mod dirs;
pub mod learner;
pub mod profile;
pub mod workdir;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::course::schema::CheckSpec;
use crate::error::Error;
use crate::outcome::{Cause, Status};
use crate::run::StepReport;
use workdir::WorkDir;

pub use learner::Learner;

/// The first line of every progress file this labcheck writes.
pub const HEADER: &str = "format\tlabcheck-progress/v1";
const FORMAT_PREFIX: &str = "format\tlabcheck-progress/";
/// The most labcheck reads of a progress file (a few kilobytes in practice).
const MAX_PROGRESS_BYTES: u64 = 16 * 1024 * 1024;

/// When a step passed, and on which track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passed {
    pub at: Timestamp,
    pub track: String,
}

/// A graded quiz.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuizResult {
    pub at: Timestamp,
    pub right: usize,
    pub of: usize,
    /// As `--answers` takes them: `1=a,2=b,3=c`.
    pub answers: String,
}

type StepKey = (String, String);
type CheckKey = (String, String, String);

/// The progress of one learner, loaded once per run and saved only if something changed.
#[derive(Debug, Default)]
pub struct Progress {
    /// Where it is saved; `None` when it must not be written (a newer labcheck's file).
    path: Option<PathBuf>,
    passed: BTreeMap<StepKey, Passed>,
    failures: BTreeMap<CheckKey, u32>,
    hint_shown: BTreeMap<CheckKey, usize>,
    /// The cause id of each check's last failure: the hint ladder climbs only while it stays.
    causes: BTreeMap<CheckKey, String>,
    quizzes: BTreeMap<String, QuizResult>,
    changed: bool,
    /// The work dir this progress belongs to (its canonical path), written into the file.
    work_dir: Option<String>,
    /// A progress file of an older labcheck (one for everyone), removed once this one is saved.
    legacy: Option<PathBuf>,
}

impl Progress {
    /// Where the progress of the learner working in `work` is kept.
    pub fn path_for(work: &WorkDir) -> Result<PathBuf, Error> {
        Ok(dirs::state_dir()?.join("learners").join(format!(
            "{}.progress",
            workdir::progress_file_name(&work.canonical)
        )))
    }

    /// The one progress file of labcheck before progress was kept per work dir; it is the
    /// runner's own, and is moved to [`Progress::path_for`] their work dir on the next save.
    pub fn legacy_path() -> Result<PathBuf, Error> {
        Ok(dirs::state_dir()?.join("progress"))
    }

    /// Load the progress of `work`: writable only when it is the runner's own work dir.
    pub fn load_for(work: &WorkDir) -> (Progress, Vec<String>) {
        let Ok(path) = Progress::path_for(work) else {
            return (Progress::in_memory(), Vec::new());
        };
        let legacy = Progress::legacy_path()
            .ok()
            // Anything there is read through `load`, which refuses (and names) a FIFO or device.
            .filter(|legacy| {
                work.own && !path.exists() && std::fs::symlink_metadata(legacy).is_ok()
            });
        let (mut progress, warnings) = match &legacy {
            Some(legacy) => {
                let (mut progress, warnings) = Progress::load(legacy);
                if progress.path.is_some() {
                    progress.path = Some(path);
                    progress.legacy = Some(legacy.clone());
                    progress.changed = true;
                }
                (progress, warnings)
            }
            None => Progress::load(&path),
        };
        if !work.own {
            // Someone else's work: read what is kept for it, never write.
            progress.path = None;
        }
        progress.work_dir = Some(work.canonical.display().to_string());
        (progress, warnings)
    }

    /// Where this progress is saved; `None` when this run never writes it.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Forget what is kept for `module` (all of it with `None`), or only for one `step` of it
    /// (`quiz` for the quiz). Returns how many records went.
    pub fn forget(&mut self, module: Option<&str>, step: Option<&str>) -> usize {
        let step_matches = |m: &str, s: &str| {
            module.is_none_or(|module| module == m) && step.is_none_or(|step| step == s)
        };
        let before =
            self.passed.len() + self.failures.len() + self.hint_shown.len() + self.quizzes.len();
        self.passed.retain(|(m, s), _| !step_matches(m, s));
        self.failures.retain(|(m, s, _), _| !step_matches(m, s));
        self.hint_shown.retain(|(m, s, _), _| !step_matches(m, s));
        self.quizzes
            .retain(|m, _| !step_matches(m, crate::quiz::STEP_NAME));
        let after =
            self.passed.len() + self.failures.len() + self.hint_shown.len() + self.quizzes.len();
        if after != before {
            self.changed = true;
        }
        before - after
    }

    /// Read the progress at `path`. Never fails: what cannot be read is reported in the
    /// returned warnings (for the CLI to print) and left out.
    pub fn load(path: &Path) -> (Progress, Vec<String>) {
        let mut progress = Progress {
            path: Some(path.to_path_buf()),
            ..Progress::default()
        };
        // Only a regular file: a FIFO or a device there would block the read (and the save).
        let bytes = match crate::paths::read_regular(path, MAX_PROGRESS_BYTES) {
            Ok(bytes) => bytes,
            Err(crate::paths::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return (progress, Vec::new());
            }
            Err(e) => {
                progress.path = None;
                return (
                    progress,
                    vec![format!(
                        "cannot read your progress at {}: {e}; this run will not update it",
                        path.display()
                    )],
                );
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let mut damaged = Vec::new();
        match lines.next() {
            Some((_, first)) if first == HEADER => {}
            Some((_, first)) if first.starts_with(FORMAT_PREFIX) => {
                progress.path = None;
                return (
                    progress,
                    vec![format!(
                        "{} was written by a newer labcheck ({}); this one reads it as empty and leaves it alone",
                        path.display(),
                        first.trim_start_matches("format\t")
                    )],
                );
            }
            Some((n, _)) => damaged.push(n + 1),
            None => {}
        }
        for (n, line) in lines {
            if progress.read_line(line).is_none() {
                damaged.push(n + 1);
            }
        }
        let mut warnings = Vec::new();
        if !damaged.is_empty() {
            let aside = path.with_extension("damaged");
            let kept = std::fs::write(&aside, &bytes).is_ok();
            warnings.push(format!(
                "{}: {} unreadable line(s) ({}) skipped; the rest of your progress is kept{}",
                path.display(),
                damaged.len(),
                damaged
                    .iter()
                    .map(|n| format!("line {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if kept {
                    format!(" and the damaged file is copied to {}", aside.display())
                } else {
                    String::new()
                }
            ));
            // Rewrite it clean on the next save.
            progress.changed = true;
        }
        (progress, warnings)
    }

    /// Progress that is never saved (a run that must leave no trace, e.g. the demo).
    pub fn in_memory() -> Progress {
        Progress::default()
    }

    fn read_line(&mut self, line: &str) -> Option<()> {
        let fields: Vec<&str> = line.split('\t').collect();
        let s = |s: &str| s.to_string();
        match fields.as_slice() {
            ["passed", module, step, at, track] => {
                let passed = Passed {
                    at: at.parse().ok()?,
                    track: s(track),
                };
                self.passed.insert((s(module), s(step)), passed);
            }
            ["failures", module, step, check, n] => {
                self.failures
                    .insert((s(module), s(step), s(check)), n.parse().ok()?);
            }
            ["hint", module, step, check, n] => {
                self.hint_shown
                    .insert((s(module), s(step), s(check)), n.parse().ok()?);
            }
            ["cause", module, step, check, cause] => {
                self.causes.insert((s(module), s(step), s(check)), s(cause));
            }
            ["workdir", dir] => self.work_dir = Some(s(dir)),
            ["quiz", module, at, right, of, answers] => {
                let result = QuizResult {
                    at: at.parse().ok()?,
                    right: right.parse().ok()?,
                    of: of.parse().ok()?,
                    answers: s(answers),
                };
                self.quizzes.insert(s(module), result);
            }
            _ => return None,
        }
        Some(())
    }

    /// Write the file if anything changed: to a temporary file first, then renamed over the old
    /// one, so a crash never leaves half a file.
    pub fn save(&mut self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if !self.changed {
            return Ok(());
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, self.to_text())?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| format!("cannot save your progress to {}: {e}", path.display()))?;
        if let Some(legacy) = self.legacy.take() {
            // Moved into the per-work-dir file just written; keeping it would bring it back.
            let _ = std::fs::remove_file(legacy);
        }
        self.changed = false;
        Ok(())
    }

    fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        let mut line = |fields: &[&str]| {
            // A name holding a tab or a line break would not read back; such a record is left out.
            if fields.iter().all(|f| !f.contains(['\t', '\n', '\r'])) {
                out.push_str(&fields.join("\t"));
                out.push('\n');
            }
        };
        if let Some(dir) = &self.work_dir {
            line(&["workdir", dir]);
        }
        for ((module, step), p) in &self.passed {
            line(&["passed", module, step, &p.at.to_string(), &p.track]);
        }
        for ((module, step, check), n) in &self.failures {
            line(&["failures", module, step, check, &n.to_string()]);
        }
        for ((module, step, check), n) in &self.hint_shown {
            line(&["hint", module, step, check, &n.to_string()]);
        }
        for ((module, step, check), cause) in &self.causes {
            line(&["cause", module, step, check, cause]);
        }
        for (module, q) in &self.quizzes {
            let (at, right, of) = (q.at.to_string(), q.right.to_string(), q.of.to_string());
            line(&["quiz", module, &at, &right, &of, &q.answers]);
        }
        out
    }

    /// When `step` of `module` passed, if it did.
    pub fn passed(&self, module: &str, step: &str) -> Option<&Passed> {
        self.passed.get(&(module.to_string(), step.to_string()))
    }

    /// The module's last graded quiz.
    pub fn quiz(&self, module: &str) -> Option<&QuizResult> {
        self.quizzes.get(module)
    }

    /// Remember a graded quiz (the latest one counts).
    pub fn record_quiz(&mut self, module: &str, result: QuizResult) {
        self.quizzes.insert(module.to_string(), result);
        self.changed = true;
    }

    /// Remember what a run found: passed steps (the first pass keeps its date), one more
    /// failure for each failed check, and the hint level each failed check was shown.
    pub fn record_run(&mut self, reports: &[StepReport], now: Timestamp) {
        for report in reports {
            let step_key = (report.module.clone(), report.step.clone());
            if report.status == Status::Pass && !self.passed.contains_key(&step_key) {
                self.passed.insert(
                    step_key,
                    Passed {
                        at: now,
                        track: report.track.clone(),
                    },
                );
                self.changed = true;
            }
            for check in &report.checks {
                let key = (report.module.clone(), report.step.clone(), check.id.clone());
                match check.outcome.status {
                    // A check still pending (a sync running) is not the learner stuck on the
                    // same state: it does not raise the hint level.
                    Status::Fail if check.outcome.pending => {}
                    Status::Fail => {
                        // A different cause is a different state: the ladder starts again.
                        if let Some(cause) = &check.outcome.cause {
                            let before = self.causes.insert(key.clone(), cause.to_string());
                            if before.is_some_and(|b| b != cause.as_str()) {
                                self.failures.remove(&key);
                                self.hint_shown.remove(&key);
                            }
                        }
                        *self.failures.entry(key.clone()).or_default() += 1;
                        if let Some(level) = check.outcome.hint_level() {
                            let shown = self.hint_shown.entry(key).or_default();
                            *shown = (*shown).max(level.level);
                        }
                        self.changed = true;
                    }
                    Status::Pass => {
                        // Passing starts the ladder again should the check ever fail later.
                        let had = self.failures.remove(&key).is_some()
                            | self.hint_shown.remove(&key).is_some()
                            | self.causes.remove(&key).is_some();
                        self.changed |= had;
                    }
                    Status::Error | Status::Skip => {}
                }
            }
        }
    }

    /// The hint level a run shows for a check if it fails now: level 1 on the first failure,
    /// one higher with each failure after it (and never below a level already shown), capped at
    /// the check's number of levels.
    pub fn hint_level(&self, module: &str, step: &str, check: &CheckSpec) -> usize {
        let key = (module.to_string(), step.to_string(), check.id.clone());
        let failures = self.failures.get(&key).copied().unwrap_or(0) as usize;
        let shown = self.hint_shown.get(&key).copied().unwrap_or(0);
        (failures + 1)
            .max(shown)
            .clamp(1, check.hint.most_levels().max(1))
    }

    /// The next hint level on demand (`labcheck hint`): one above the last one shown, capped;
    /// remembered as shown.
    pub fn reveal_hint(&mut self, module: &str, step: &str, check: &CheckSpec) -> usize {
        let key = (module.to_string(), step.to_string(), check.id.clone());
        let shown = self.hint_shown.get(&key).copied().unwrap_or(0);
        let level = (shown + 1).clamp(1, check.hint.most_levels().max(1));
        if level != shown {
            self.hint_shown.insert(key, level);
            self.changed = true;
        }
        level
    }

    /// The cause of this check's last failure, if one is kept and still declared.
    pub fn last_cause(&self, module: &str, step: &str, check: &str) -> Option<Cause> {
        let key = (module.to_string(), step.to_string(), check.to_string());
        self.causes.get(&key).and_then(|c| Cause::parse(c))
    }

    /// How many runs failed this check since it last passed.
    pub fn failures(&self, module: &str, step: &str, check: &str) -> u32 {
        self.failures
            .get(&(module.to_string(), step.to_string(), check.to_string()))
            .copied()
            .unwrap_or(0)
    }
}

/// The day of a timestamp as the status map shows it (UTC).
pub fn day(at: Timestamp) -> String {
    at.to_string().chars().take(10).collect()
}

#[cfg(test)]
mod tests;
