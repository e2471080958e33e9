//! A run's probe answers, recorded or replayed. `labcheck bundle` runs the step with the probes
//! in [`Mode::Record`]: every answer a probe gives a check (a repo's state, a history question, a
//! file, a cluster read's status) is kept, keyed by the question, in a [`Tape`]. `labcheck MODULE
//! STEP --bundle FILE` runs the same checks with the probes in [`Mode::Replay`]: each question is
//! answered from the tape. A question the tape does not hold is a *miss*: the probe answers with
//! an error, and the runner (which watches for misses around each check, see [`noting_misses`])
//! turns the check into "could not check" with the cause `not-in-bundle`, never a verdict.
//!
//! The tape holds only answers to questions the run asked, so it holds nothing the checks did
//! not read.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::api_path::ApiPath;

/// Where probes get their answers.
#[derive(Debug, Clone, Default)]
pub enum Mode {
    /// From the learner's repos and cluster.
    #[default]
    Live,
    /// From the learner's repos and cluster, keeping every answer in the tape.
    Record(Arc<Tape>),
    /// From the tape only.
    Replay(Arc<Tape>),
}

impl Mode {
    /// Whether answers come from a tape.
    pub fn replaying(&self) -> bool {
        matches!(self, Mode::Replay(_))
    }
}

/// Answers by area (a work repo's folder under the work dir, or [`CLUSTER`]) and question.
#[derive(Debug, Default)]
pub struct Tape {
    areas: Mutex<BTreeMap<String, BTreeMap<String, Value>>>,
    /// The bodies of the cluster's 2xx answers while recording, for the snapshot of what was
    /// read (never on the tape itself: a Secret's body is blanked only in the snapshot).
    reads: Mutex<Vec<(ApiPath, String)>>,
}

/// The area of the cluster's reads.
pub const CLUSTER: &str = "cluster";

impl Tape {
    /// A tape holding `areas` (as [`Tape::areas`] gave them).
    pub fn from_areas(areas: BTreeMap<String, BTreeMap<String, Value>>) -> Tape {
        Tape {
            areas: Mutex::new(areas),
            reads: Mutex::default(),
        }
    }

    /// Keep the body of a 2xx answer to GET `path` (see `probe::cluster::tape`).
    pub fn keep_read(&self, path: ApiPath, body: String) {
        self.reads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((path, body));
    }

    /// The bodies kept, in the order they were answered.
    pub fn kept_reads(&self) -> Vec<(ApiPath, String)> {
        self.reads.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, BTreeMap<String, Value>>> {
        // A poisoned lock only means a check panicked; the map is still sound.
        self.areas.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keep `answer` to `question` in `area` (the first answer stays: a run asks each question
    /// of a repo once, and a repeated question gets the same answer).
    pub fn record<T: Serialize>(&self, area: &str, question: &Question, answer: &T) {
        let Ok(value) = serde_json::to_value(answer) else {
            return;
        };
        self.lock()
            .entry(area.to_string())
            .or_default()
            .entry(question.0.clone())
            .or_insert(value);
    }

    /// The answer to `question` in `area`; `None` (and a miss noted for the check asking) when
    /// the tape does not hold it, or holds something this labcheck cannot read.
    pub fn answer<T: DeserializeOwned>(&self, area: &str, question: &Question) -> Option<T> {
        let found = self
            .lock()
            .get(area)
            .and_then(|answers| answers.get(&question.0))
            .cloned()
            .and_then(|value| serde_json::from_value(value).ok());
        if found.is_none() {
            note_miss(format!("{area}: {}", question.0));
        }
        found
    }

    /// Every area with its answers.
    pub fn areas(&self) -> BTreeMap<String, BTreeMap<String, Value>> {
        self.lock().clone()
    }
}

/// A question put to a probe: its method and arguments, as one string (the tape's key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question(pub String);

impl Question {
    /// `method` asked with `args`.
    pub fn new(method: &str, args: &[&str]) -> Question {
        let mut key = method.to_string();
        for arg in args {
            key.push(' ');
            // JSON quoting keeps arguments with spaces apart and the key readable.
            key.push_str(&serde_json::to_string(arg).unwrap_or_default());
        }
        Question(key)
    }
}

tokio::task_local! {
    static MISSES: Arc<Mutex<Vec<String>>>;
}

/// Run `check`, returning its output and the questions it asked that the tape did not hold.
pub async fn noting_misses<F: Future>(check: F) -> (F::Output, Vec<String>) {
    let misses = Arc::new(Mutex::new(Vec::new()));
    let output = MISSES.scope(misses.clone(), check).await;
    let missed = std::mem::take(&mut *misses.lock().unwrap_or_else(|p| p.into_inner()));
    (output, missed)
}

/// [`noting_misses`] for a check that does not wait.
pub fn noting_misses_sync<R>(check: impl FnOnce() -> R) -> (R, Vec<String>) {
    let misses = Arc::new(Mutex::new(Vec::new()));
    let output = MISSES.sync_scope(misses.clone(), check);
    let missed = std::mem::take(&mut *misses.lock().unwrap_or_else(|p| p.into_inner()));
    (output, missed)
}

fn note_miss(question: String) {
    let _ = MISSES.try_with(|misses| {
        misses
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(question);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_answer_replays_and_an_unrecorded_question_is_a_miss() {
        let tape = Tape::default();
        let asked = Question::new("read_file", &["helm/dev.yaml"]);
        tape.record("checkout-config", &asked, &"a: 1".to_string());
        let ((found, missing), misses) = noting_misses_sync(|| {
            let found: Option<String> = tape.answer("checkout-config", &asked);
            let other = Question::new("read_file", &["credentials.env"]);
            let missing: Option<String> = tape.answer("checkout-config", &other);
            (found, missing)
        });
        assert_eq!(found.as_deref(), Some("a: 1"));
        assert_eq!(missing, None);
        assert_eq!(
            misses,
            vec!["checkout-config: read_file \"credentials.env\"".to_string()]
        );
    }

    #[test]
    fn questions_keep_their_arguments_apart() {
        assert_ne!(
            Question::new("m", &["a b", "c"]),
            Question::new("m", &["a", "b c"])
        );
    }
}
