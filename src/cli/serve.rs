//! `labcheck serve FILE`: serve a snapshot as a read-only Kubernetes API until Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::error::{Error, exit};
use crate::serve::{self, ServeError, ServeOptions};
use crate::snapshot::{Snapshot, SnapshotError};

/// Arguments of `labcheck serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The snapshot to serve (YAML or JSON, `format: labcheck-snapshot/v1`; see docs/snapshot.md),
    /// or a course's derived state (`based_on:` a snapshot beside it), served with its changes.
    #[arg(value_name = "FILE", required_unless_present = "bundle")]
    pub file: Option<PathBuf>,

    /// Serve the cluster part of a learner's bundle (`labcheck bundle … -o FILE.tar.zst`) instead.
    #[arg(long, value_name = "FILE.tar.zst", conflicts_with = "file")]
    pub bundle: Option<PathBuf>,

    /// Address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR:PORT")]
    pub listen: SocketAddr,

    /// Write a kubeconfig for this server here (kubectl --kubeconfig PATH, labcheck --kubeconfig PATH).
    #[arg(long, value_name = "PATH")]
    pub write_kubeconfig: Option<PathBuf>,

    /// The context name in the written kubeconfig.
    #[arg(
        long = "kubeconfig-context",
        default_value = "labcheck",
        value_name = "NAME"
    )]
    pub kubeconfig_context: String,

    /// Delay every response by this many milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub latency: u64,

    /// Add up to this many milliseconds more to each response, drawn anew each time.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub jitter: u64,

    /// Append each answered request to FILE as it is answered: milliseconds since start,
    /// method, path?query and status, tab-separated (for benchmarks).
    #[arg(long, value_name = "FILE")]
    pub request_log: Option<PathBuf>,

    /// Answer every resource request with this HTTP status (401, 403, 500, …) and a Status body,
    /// to try what "could not check" looks like.
    #[arg(long, value_name = "CODE", value_parser = clap::value_parser!(u16).range(400..600))]
    pub fail_with: Option<u16>,
}

fn snapshot_error(error: SnapshotError) -> Error {
    match error {
        SnapshotError::Parse {
            file,
            line,
            column,
            message,
        } => Error::CourseFile {
            file,
            line,
            column,
            message,
        },
        other => Error::Usage(other.to_string()),
    }
}

fn serve_error(error: ServeError) -> Error {
    match error {
        ServeError::Snapshot(e) => snapshot_error(e),
        other => Error::Environment(other.to_string()),
    }
}

/// A snapshot file, or a course's derived state (`based_on:` a snapshot beside it) with its
/// changes applied.
fn load(file: &std::path::Path) -> Result<Snapshot, Error> {
    match crate::course::fixtures::derived_file_text(file)? {
        Some(text) => Snapshot::from_yaml_str(&text).map_err(snapshot_error),
        None => Snapshot::load(file).map_err(snapshot_error),
    }
}

/// Load, serve, print how to reach it, and wait for Ctrl-C.
pub async fn run(args: &ServeArgs) -> Result<u8, Error> {
    let (snapshot, file) = match (&args.bundle, &args.file) {
        (Some(bundle), _) => (from_bundle(bundle)?, bundle.clone()),
        (None, Some(file)) => (load(file)?, file.clone()),
        (None, None) => {
            return Err(Error::Usage(
                "name a snapshot file to serve, or --bundle FILE.tar.zst".to_string(),
            ));
        }
    };
    let description = snapshot.description.clone();
    let later: Vec<Duration> = snapshot.timeline.iter().map(|t| t.after).collect();
    let options = ServeOptions {
        latency: Duration::from_millis(args.latency),
        jitter: Duration::from_millis(args.jitter),
        request_log: args.request_log.clone(),
        fail_with: args.fail_with,
        ..ServeOptions::default()
    };
    let server = serve::start(snapshot, args.listen, options)
        .await
        .map_err(serve_error)?;
    let url = server.url();
    let mut text = format!(
        "labcheck serve: serving {} on {url} (read-only)\n",
        file.display()
    );
    if let Some(description) = description {
        text.push_str(&format!("  snapshot: {description}\n"));
    }
    if !later.is_empty() {
        let times: Vec<String> = later
            .iter()
            .map(|d| humantime::format_duration(*d).to_string())
            .collect();
        text.push_str(&format!(
            "  timeline: the state changes {} after start (at {})\n",
            if later.len() == 1 { "once" } else { "in steps" },
            times.join(", ")
        ));
    }
    match &args.write_kubeconfig {
        Some(path) => {
            serve::write_kubeconfig(path, &url, &args.kubeconfig_context).map_err(serve_error)?;
            text.push_str(&format!(
                "  kubeconfig: {}\n  try: kubectl --kubeconfig {} get jobs -A\n",
                path.display(),
                path.display()
            ));
        }
        None => text.push_str(&format!("  try: kubectl --server {url} get jobs -A\n")),
    }
    text.push_str("Press Ctrl-C to stop.\n");
    // Listen before saying so: a Ctrl-C that comes right after the banner must stop the server,
    // not kill it (`ctrl_c()` would only start listening when first awaited).
    let stop = listen_for_ctrl_c()?;
    super::emit(&text);
    stop.await;
    server.shutdown().await;
    super::emit("labcheck serve: stopped\n");
    Ok(exit::PASS)
}

/// The cluster part of a bundle, as the snapshot it is.
fn from_bundle(path: &std::path::Path) -> Result<Snapshot, Error> {
    let bundle = crate::bundle::Bundle::load(path).map_err(|e| Error::Usage(e.to_string()))?;
    let Some(yaml) = bundle.get(crate::bundle::CLUSTER) else {
        return Err(Error::Usage(format!(
            "the bundle {} has no cluster part: its cluster could not be read when it was made (bundle.json says why)",
            path.display()
        )));
    };
    Snapshot::from_yaml_str(&String::from_utf8_lossy(yaml)).map_err(snapshot_error)
}

/// Start listening for Ctrl-C now; the returned future ends when it comes.
#[cfg(unix)]
pub(crate) fn listen_for_ctrl_c() -> Result<impl std::future::Future<Output = ()>, Error> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())
        .map_err(|e| Error::Environment(format!("cannot wait for Ctrl-C: {e}")))?;
    Ok(async move {
        interrupt.recv().await;
    })
}

/// Start listening for Ctrl-C; the returned future ends when it comes.
#[cfg(not(unix))]
pub(crate) fn listen_for_ctrl_c() -> Result<impl std::future::Future<Output = ()>, Error> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
