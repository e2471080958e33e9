//! Making a bundle: the learner's run as their own `labcheck MODULE STEP` gives it (without
//! waiting: a bundle is what is there now; without touching their progress), every probe answer
//! recorded for the replay, the reports as the reporters word them, the cluster objects the run
//! read (Secrets and literal env values blanked) and each work repo's state and read files.
//! [`open`] settles everything before anything runs, so a refused destination costs
//! nothing; [`Opened::make`] runs and packs.

use std::path::Path;
use std::sync::Arc;

use super::{About, Bundle, CLUSTER, FORMAT, add_repo, add_tape, reads, redact_credentials};
use crate::course::Course;
use crate::course::schema::RepoSpec;
use crate::error::Error;
use crate::probe::tape::Tape;
use crate::report::{self, Format, Styles};
use crate::run::Session;

/// A bundle ready to make: the course loaded, the step and track settled.
pub struct Opened {
    request: Session,
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

/// Open a bundle of `request`'s run (its course, module, step, track, work dir, cluster and
/// Argo CD namespace; a bundle's run never waits, remembers nothing and records every answer):
/// load the course and settle the step and track; nothing is run yet.
pub fn open(request: Session) -> Result<Opened, Error> {
    let asked = &request.asked;
    let course = asked.course()?;
    let module = course.module(&asked.module)?;
    module.select(asked.step.as_deref())?;
    let track = module.track(asked.track.as_deref())?.to_string();
    Ok(Opened {
        request,
        course,
        track,
    })
}

impl Opened {
    /// The module's work repos (no bundle may be written inside one).
    pub fn repos(&self) -> &[RepoSpec] {
        self.course
            .module(&self.request.asked.module)
            .map(|m| m.manifest.repos.as_slice())
            .unwrap_or_default()
    }

    /// Run the step, gather what it read, pack the bundle.
    pub async fn make(&self) -> Result<Made, Error> {
        let request = &self.request;
        let module = self.course.module(&request.asked.module)?;
        let steps = module.select(request.asked.step.as_deref())?;
        let tape = Arc::new(Tape::default());
        let mut session = request.recording(tape.clone());
        session.asked.track = Some(self.track.clone());
        // One connection: the run's, then the cluster part's reads through it.
        let cluster = session.connect().await;
        let found = session.run_on(cluster.clone()).await?;
        let render =
            |format| report::render(&found.reports, found.module_run, format, Styles::plain());
        // The answers the run got, as they stand now: the cluster part's own reads below go
        // through the same recording connection and are no answers of the run.
        let answers = Tape::from_areas(tape.areas());

        // The cluster part: what the run read, as a snapshot.
        let captured = match cluster.unavailable_reason() {
            Some(reason) => Err(reason),
            None => {
                let mut snapshot = crate::probe::cluster::tape::snapshot_of(
                    &tape,
                    &cluster,
                    &format!("{}: read from {}", request.asked.module, cluster.describe()),
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
            module: request.asked.module.clone(),
            step: request.asked.step.clone(),
            track: self.track.clone(),
            created: jiff::Timestamp::now().to_string(),
            work_dir: request.work_dir.clone(),
            home: (request.asked.paths.home())
                .filter(|home| request.work_dir.starts_with(home))
                .map(Path::to_path_buf),
            argocd_namespace: request.asked.argocd_namespace.clone(),
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
        add_tape(&mut bundle, module, &answers);
        for (repo, paths) in reads(&steps) {
            let (work_dir, shower) = (&request.work_dir, &request.asked.paths);
            add_repo(&mut bundle, module, work_dir, shower, &repo, &paths);
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
