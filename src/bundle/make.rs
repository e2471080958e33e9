//! Making a bundle: the learner's run as their own `labcheck MODULE STEP` gives it (without
//! waiting: a bundle is what is there now; without touching their progress), every probe answer
//! recorded for the replay, the reports as the reporters word them, the cluster objects the run
//! read (Secrets and literal env values blanked) and each work repo's state and read files.
//! [`Request::open`] settles everything before anything runs, so a refused destination costs
//! nothing; [`Opened::make`] runs and packs.

use std::path::PathBuf;
use std::sync::Arc;

use super::{About, Bundle, CLUSTER, FORMAT, add_repo, add_tape, reads, redact_credentials};
use crate::course::Course;
use crate::course::schema::RepoSpec;
use crate::error::Error;
use crate::probe::cluster::{Cluster, ClusterOptions};
use crate::probe::files::PathShower;
use crate::probe::tape::{Mode, Tape};
use crate::report::{self, Format, Styles};
use crate::run::session::load_course;
use crate::run::{Session, WaitPolicy};

/// What to bundle, already taken from the command line.
#[derive(Debug, Clone)]
pub struct Request {
    /// Read the course from this folder; the built-in course when `None`.
    pub course_dir: Option<PathBuf>,
    /// The module, e.g. `module-10`.
    pub module: String,
    /// The step, exercise or stage; the whole module when `None`.
    pub step: Option<String>,
    /// `--track`, else the module's default.
    pub track: Option<String>,
    /// The folder holding the learner's work repos.
    pub work_dir: PathBuf,
    /// How to reach the cluster.
    pub cluster: ClusterOptions,
    /// `--argocd-namespace`, else the module's.
    pub argocd_namespace: Option<String>,
}

/// A bundle ready to make: the course loaded, the step and track settled.
pub struct Opened {
    request: Request,
    course: Course,
    track: String,
}

/// A bundle made.
pub struct Made {
    /// The bundle's bytes (a zstd-compressed tar).
    pub bytes: Vec<u8>,
    /// How many files it holds.
    pub files: usize,
    /// Why it has no cluster part, when it has none.
    pub cluster_error: Option<String>,
}

impl Request {
    /// Load the course and settle the step and track; nothing is run yet.
    pub fn open(self) -> Result<Opened, Error> {
        let course = load_course(self.course_dir.as_deref())?;
        let module = course.module(&self.module)?;
        module.select(self.step.as_deref())?;
        let track = module.track(self.track.as_deref())?.to_string();
        Ok(Opened {
            request: self,
            course,
            track,
        })
    }
}

impl Opened {
    /// The module's work repos (no bundle may be written inside one).
    pub fn repos(&self) -> &[RepoSpec] {
        self.course
            .module(&self.request.module)
            .map(|m| m.manifest.repos.as_slice())
            .unwrap_or_default()
    }

    /// Run the step, gather what it read, pack the bundle.
    pub async fn make(&self) -> Result<Made, Error> {
        let request = &self.request;
        let module = self.course.module(&request.module)?;
        let steps = module.select(request.step.as_deref())?;
        let tape = Arc::new(Tape::default());
        let session = Session {
            course_dir: request.course_dir.clone(),
            module: request.module.clone(),
            step: request.step.clone(),
            track: Some(self.track.clone()),
            work_dir: request.work_dir.clone(),
            cluster: request.cluster.clone(),
            argocd_namespace: request.argocd_namespace.clone(),
            policy: WaitPolicy::Never,
            log_reads: false,
            paths: PathShower::from_env(),
            remember: false,
            tape: Mode::Record(tape.clone()),
        };
        let found = session.run(None, &|_| {}).await?;
        let render =
            |format| report::render(&found.reports, found.module_run, format, Styles::plain());

        // The cluster part: what the run read, as a snapshot.
        let cluster = Cluster::connect(&request.cluster).await;
        let captured = match cluster.unavailable_reason() {
            Some(reason) => Err(reason),
            None => {
                let mut snapshot = crate::probe::cluster::tape::snapshot_of(
                    &tape,
                    &cluster,
                    &format!("{}: read from {}", request.module, cluster.describe()),
                )
                .await;
                for object in &mut snapshot.objects {
                    redact_credentials(object);
                }
                snapshot.to_yaml().map_err(|e| e.to_string())
            }
        };
        let about = About {
            format: FORMAT.to_string(),
            module: request.module.clone(),
            step: request.step.clone(),
            track: self.track.clone(),
            created: jiff::Timestamp::now().to_string(),
            work_dir: request.work_dir.clone(),
            home: crate::paths::home_dir().filter(|home| request.work_dir.starts_with(home)),
            argocd_namespace: request.argocd_namespace.clone(),
            cluster_error: captured.as_ref().err().cloned(),
        };
        let mut bundle = Bundle::default();
        bundle.add(
            "bundle.json",
            serde_json::to_vec_pretty(&about).unwrap_or_default(),
        );
        bundle.add("report.txt", render(Format::Human));
        bundle.add("report.json", render(Format::Json));
        if let Ok(yaml) = captured {
            bundle.add(CLUSTER, yaml);
        }
        add_tape(&mut bundle, module, &tape);
        for (repo, paths) in reads(&steps) {
            add_repo(&mut bundle, module, &request.work_dir, &repo, &paths);
        }
        let bytes = bundle
            .to_tar_zst()
            .map_err(|e| Error::Environment(format!("cannot pack the bundle: {e}")))?;
        Ok(Made {
            bytes,
            files: bundle.paths().count(),
            cluster_error: about.cluster_error,
        })
    }
}
