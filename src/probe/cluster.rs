//! Reading the learner's cluster through the Kubernetes API (get, list and logs only).

/// Access to one cluster for one run, with a per-run cache (not built yet).
#[derive(Debug, Default)]
pub struct Cluster {
    /// Why the cluster cannot be read, when it cannot.
    pub unavailable: Option<String>,
}

impl Cluster {
    /// A cluster that cannot be read, with the reason every cluster check will report.
    pub fn unavailable(reason: impl Into<String>) -> Cluster {
        Cluster {
            unavailable: Some(reason.into()),
        }
    }

    /// Drop cached reads so the next round of a wait sees fresh state.
    pub fn forget(&self) {}
}

/// How to reach a cluster, from the command line.
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    pub kubeconfig: Option<std::path::PathBuf>,
    pub context: Option<String>,
    pub snapshot: Option<std::path::PathBuf>,
}

impl Cluster {
    /// Prepare access (no request is sent until a check reads something).
    pub async fn connect(_options: &ClusterOptions) -> Cluster {
        Cluster::unavailable("cluster checks are not built yet")
    }
}
