//! Making a bundle connects to the learner's cluster once: the run's reads and the cluster part's
//! go through one connection (`Session::connect`, handed to the run), and the paths it writes
//! are shown through the run's own home, never a second look at `HOME`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use labcheck::bundle::Bundle;
use labcheck::probe::cluster::ClusterOptions;
use labcheck::probe::files::PathShower;
use labcheck::run::session::{Asked, Session};
use labcheck::serve::ServeOptions;
use serde_json::Value;

use crate::harness::{Labcheck, MODULE};

/// A kubeconfig for `url` whose user's credentials come from an exec plugin that notes each of
/// its runs in `runs`: labcheck runs the plugin each time it connects (`Cluster::connect`
/// resolves the kubeconfig's credentials), so its runs count the connections, however many
/// sockets the HTTP client's pool opens for reads that go out at once.
fn counting_kubeconfig(dir: &Path, url: &str, runs: &Path) -> PathBuf {
    let plugin = dir.join("count-and-answer");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\necho run >> '{}'\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"lab-token\"}}}}'\n",
            runs.display()
        ),
    )
    .expect("the plugin");
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).expect("runnable");
    let kubeconfig = dir.join("kc.yaml");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: \"{url}\"\ncontexts:\n- name: lab\n  context:\n    cluster: lab\n    user: learner\ncurrent-context: lab\nusers:\n- name: learner\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: \"{}\"\n      interactiveMode: Never\n",
            plugin.display()
        ),
    )
    .expect("the kubeconfig");
    kubeconfig
}

/// How many times the plugin of [`counting_kubeconfig`] ran.
fn runs(file: &Path) -> usize {
    std::fs::read_to_string(file).map_or(0, |text| text.lines().count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn making_a_bundle_connects_to_the_cluster_once() {
    let root = tempfile::tempdir().expect("a temp dir");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let (world, cluster) = crate::harness::step_4_solved(&root.path().join("lab"));
    let server = crate::harness::serve(cluster, ServeOptions::default()).await;
    let connects = root.path().join("connects");
    let kubeconfig = counting_kubeconfig(&home, &server.url(), &connects);
    let out = root.path().join("ana.tar.zst");
    let args: Vec<String> = [
        "bundle",
        MODULE,
        "step-4",
        "-o",
        &out.display().to_string(),
        "--kubeconfig",
        &kubeconfig.display().to_string(),
        "--work-dir",
        &world.work_dir().display().to_string(),
    ]
    .map(String::from)
    .to_vec();
    let made = tokio::task::spawn_blocking(move || Labcheck::new(&home).args(&args).run())
        .await
        .expect("ran");
    assert_eq!(made.code, 0, "{}{}", made.stdout, made.stderr);

    let requests = server.requests.entries();
    let bundle = Bundle::load(&out).expect("the bundle reads back");
    let cluster_part = String::from_utf8_lossy(bundle.get("cluster.yaml").expect("cluster"));
    assert!(cluster_part.contains("checkout-migrate"), "{cluster_part}");
    // The run's reads and the cluster part's, many requests, through one connection.
    assert!(requests.len() > 1, "{requests:#?}");
    assert_eq!(runs(&connects), 1, "{requests:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_shows_paths_under_the_runs_home_not_the_processs() {
    // The session's home is one the test makes up: the process's `HOME` is elsewhere, so a
    // bundle that looked at `HOME` again would write the path out in full.
    let root = tempfile::tempdir().expect("a temp dir");
    let home = root.path().join("learner-home");
    let work = home.join("work");
    std::fs::create_dir_all(&work).expect("an empty work dir");
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/presync-failed.yaml");
    let session = Session {
        asked: Asked {
            module: MODULE.to_string(),
            step: Some("step-4".to_string()),
            paths: PathShower::new(Some(home.clone())),
            ..Asked::default()
        },
        work_dir: work,
        cluster: ClusterOptions {
            snapshot: Some(snapshot),
            ..ClusterOptions::default()
        },
        ..Session::default()
    };
    let made = labcheck::bundle::open(session)
        .expect("opens")
        .make()
        .await
        .expect("made");
    let file = root.path().join("b.tar.zst");
    std::fs::write(&file, &made.bytes).expect("written");
    let bundle = Bundle::load(&file).expect("the bundle reads back");
    let git: Value = serde_json::from_slice(
        bundle
            .get("repos/checkout-config/git.json")
            .expect("git.json"),
    )
    .expect("JSON");
    let unread = git["files_unread"].to_string();
    assert!(unread.contains("~/work/checkout-config"), "{unread}");
    assert!(!unread.contains(&home.display().to_string()), "{unread}");
}
