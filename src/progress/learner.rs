//! The learner as labcheck keeps them: their progress (of the work dir checked) and their
//! profile, and the read-only view of it the runner gets.

use std::path::PathBuf;

use jiff::Timestamp;

use super::profile::Profile;
use super::workdir::WorkDir;
use super::{Progress, day};
use crate::course::Module;
use crate::error::Error;
use crate::run::{History, Recall, StepReport};

/// What labcheck keeps about the learner, loaded once per run.
#[derive(Debug)]
pub struct Learner {
    /// What is kept for the work dir checked.
    pub progress: Progress,
    /// The learner's choices (their track).
    pub profile: Profile,
    /// Where the profile lives (`None` without HOME or XDG dirs).
    pub profile_path: Option<PathBuf>,
    /// What could not be read, for the CLI to show on stderr.
    pub warnings: Vec<String>,
}

impl Learner {
    /// Load the runner's own progress (their own work dir, see [`super::workdir`]) and profile from
    /// the XDG dirs. Without a home to keep them in, progress lives in memory for this run only.
    pub fn load() -> Learner {
        match WorkDir::own() {
            Ok(work) => Learner::load_for(&work),
            Err(_) => Learner::with_progress(Progress::in_memory(), Vec::new()),
        }
    }

    /// Load the progress kept for the learner working in `work` (written only when `work` is the
    /// runner's own) and the runner's profile.
    pub fn load_for(work: &WorkDir) -> Learner {
        let (progress, warnings) = Progress::load_for(work);
        Learner::with_progress(progress, warnings)
    }

    fn with_progress(progress: Progress, warnings: Vec<String>) -> Learner {
        let profile_path = Profile::default_path().ok();
        let profile = profile_path
            .as_deref()
            .map(Profile::load)
            .unwrap_or_default();
        Learner {
            progress,
            profile,
            profile_path,
            warnings,
        }
    }

    /// The track for `module`: `--track` if given (it must be offered), else the profile's if
    /// the module offers it, else the module's default.
    pub fn track<'a>(
        &'a self,
        module: &'a Module,
        asked: Option<&'a str>,
    ) -> Result<&'a str, Error> {
        match (asked, &self.profile.track) {
            (Some(asked), _) => module.track(Some(asked)),
            (None, Some(saved)) if module.manifest.tracks.available.contains(saved) => Ok(saved),
            (None, _) => module.track(None),
        }
    }

    /// Save progress; failing to save is worth a warning, never a lost verdict.
    pub fn save(&mut self) -> Result<(), String> {
        self.progress.save()
    }
}

/// The runner sees the learner's progress read-only, and hands it the reports afterwards.
impl History for Learner {
    fn track<'a>(&'a self, module: &'a Module, asked: Option<&'a str>) -> Result<&'a str, Error> {
        Learner::track(self, module, asked)
    }

    fn recall(&self, module: &Module) -> Recall {
        let name = &module.manifest.module;
        let mut recall = Recall::default();
        for step in &module.steps {
            if let Some(passed) = self.progress.passed(name, &step.name) {
                recall.seen_passed.insert(step.name.clone(), day(passed.at));
            }
            for check in step.checks.iter().filter(|c| c.hint.most_levels() > 1) {
                let level = self.progress.hint_level(name, &step.name, check);
                recall
                    .hint_levels
                    .insert((step.name.clone(), check.id.clone()), level);
            }
        }
        recall
    }

    fn remember(&mut self, reports: &[StepReport]) -> Result<(), String> {
        self.progress.record_run(reports, Timestamp::now());
        self.progress.save()
    }
}

#[cfg(test)]
impl Learner {
    /// A learner kept in memory whose progress shows `passed` steps of module 10 passed.
    pub(crate) fn having_passed(passed: &[&str]) -> Learner {
        use crate::outcome::Outcome;
        use crate::run::fixtures::{check, step};
        let reports: Vec<StepReport> = passed
            .iter()
            .map(|name| step(name, name, vec![check("c", Outcome::pass("ok"))]))
            .collect();
        let mut progress = Progress::in_memory();
        progress.record_run(&reports, Timestamp::UNIX_EPOCH);
        // No profile read: a test never depends on the machine's own files.
        Learner {
            progress,
            profile: Profile::default(),
            profile_path: None,
            warnings: Vec::new(),
        }
    }
}
