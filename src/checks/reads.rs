//! What a check reads of the cluster, by name, and how those names change for one learner of a
//! class. Each kind declares both (see [`super::KindReads`]); snapshots, `doctor` and the class
//! use them instead of looking inside kinds.

/// One object read by API path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectRead {
    /// `v1`, `apps/v1`, …
    pub api: String,
    /// The plural resource (`configmaps`).
    pub resource: String,
    pub namespace: Option<String>,
    pub name: String,
}

/// The cluster objects a check reads by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterReads {
    pub objects: Vec<ObjectRead>,
    /// Jobs as (namespace, name), with their pods and logs.
    pub jobs: Vec<(String, String)>,
    /// Argo CD Applications, by name, in Argo CD's namespace.
    pub apps: Vec<String>,
    /// Every Application in Argo CD's namespace: an app of apps is found through its child's
    /// tracking, so its name is not known before the cluster is read.
    pub every_app: bool,
}

impl ClusterReads {
    /// Nothing of the cluster: a check of the learner's repos only.
    pub fn none() -> Self {
        ClusterReads::default()
    }

    /// One Job (with its pods and logs) and, when named, the Application whose sync ran it.
    pub fn job_of_app(namespace: &str, job: &str, app: Option<&String>) -> Self {
        ClusterReads {
            jobs: vec![(namespace.to_string(), job.to_string())],
            apps: app.into_iter().cloned().collect(),
            ..ClusterReads::none()
        }
    }

    /// True when the check reads nothing of the cluster.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty() && self.jobs.is_empty() && self.apps.is_empty() && !self.every_app
    }

    /// Every namespace named (objects and Jobs; Applications live in Argo CD's namespace).
    pub fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.objects
            .iter()
            .filter_map(|o| o.namespace.as_deref())
            .chain(self.jobs.iter().map(|(ns, _)| ns.as_str()))
    }
}

/// Renames what a check names on a shared cluster to one learner's copy (`checkout-dev` →
/// `alice-checkout-dev`). Kinds call it for every name they read; the class records the changes.
pub trait LearnerNames {
    /// A namespace the check reads.
    fn namespace(&mut self, namespace: &mut String);
    /// An Application the check reads.
    fn app(&mut self, app: &mut String);
    /// A Job's namespace and, when named, the Application whose sync ran it.
    fn job_of_app(&mut self, namespace: &mut String, app: Option<&mut String>) {
        self.namespace(namespace);
        if let Some(app) = app {
            self.app(app);
        }
    }
}
