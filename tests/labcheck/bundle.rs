//! A learner's bundle: what an instructor needs to help, and nothing else. A secret planted in a
//! work repo (committed and untracked) and in the cluster (a Secret, a container's env value)
//! never reaches it; its report is the learner's own; its cluster part, served by `labcheck serve
//! --bundle`, gives the same verdicts as the learner's live cluster.

use std::path::Path;
use std::time::Duration;

use labcheck::bundle::Bundle;
use labcheck::serve::ServeOptions;
use serde_json::{Value, json};

use crate::harness::{Labcheck, kubeconfig_at, verdicts};

const PLANTED: &str = "planted-secret-value-9131";

fn run(home: &Path, args: &[&str]) -> crate::harness::Run {
    Labcheck::new(home).args(args).run()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_holds_what_the_checks_read_and_never_a_planted_secret() {
    let root = tempfile::tempdir().expect("a temp dir");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let (world, cluster) = crate::harness::step_4_solved(&root.path().join("lab"));
    let cluster = cluster
        .with_object(json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "checkout-db", "namespace": "checkout-dev"},
            "stringData": {"password": PLANTED}}))
        .with_object(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "checkout-web-1", "namespace": "checkout-dev",
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": PLANTED}},
            "spec": {"containers": [{"name": "web", "image": "checkout:6.7.0",
                     "env": [{"name": "DB_PASSWORD", "value": PLANTED}]}]},
            "status": {"phase": "Running"}}))
        // A pod the checks do read (they list the smoke test Job's pods by `job-name`), with a
        // literal env value.
        .with_object(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "checkout-smoke-test-planted", "namespace": "checkout-dev",
                         "labels": {"job-name": "checkout-smoke-test"}},
            "spec": {"containers": [{"name": "smoke", "image": "checkout:6.7.0",
                     "env": [{"name": "DB_PASSWORD", "value": PLANTED}]}]},
            "status": {"phase": "Pending"}}));
    let server = crate::harness::serve(cluster, ServeOptions::default()).await;
    let kubeconfig = kubeconfig_at(&home.join("kc.yaml"), &server.url(), "lab");
    let work = world.work_dir();
    // Planted in the repo the step reads: committed in a file no check reads, and untracked.
    let repo = world.repo("checkout-config").expect("checkout-config");
    repo.write("credentials.env", &format!("PASSWORD={PLANTED}\n"))
        .expect("written");
    repo.commit_written("keep the database password here")
        .expect("committed");
    std::fs::write(work.join("checkout-config/notes.txt"), PLANTED).expect("untracked");
    // And in the origin URL, where a token goes when a learner clones over https with it.
    repo.git(&[
        "remote",
        "set-url",
        "origin",
        &format!("https://learner:{PLANTED}@git.example/team/checkout-config.git"),
    ])
    .expect("origin set");

    let out = root.path().join("ana.tar.zst");
    let (kc, wd, o) = (
        kubeconfig.display().to_string(),
        work.display().to_string(),
        out.display().to_string(),
    );
    let made = tokio::task::spawn_blocking({
        let home = home.clone();
        let args = vec![
            "bundle",
            "module-10",
            "step-4",
            "-o",
            &o,
            "--kubeconfig",
            &kc,
            "--work-dir",
            &wd,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        move || {
            // A secret in the learner's environment too.
            Labcheck::new(&home)
                .args(&args)
                .env("CHECKOUT_DB_PASSWORD", PLANTED)
                .run()
        }
    })
    .await
    .expect("ran");
    assert_eq!(made.code, 0, "{}{}", made.stdout, made.stderr);

    // Nowhere in the file, compressed or not, is the planted value.
    let raw = std::fs::read(&out).expect("the bundle");
    let tar = zstd::decode_all(raw.as_slice()).expect("zstd");
    let text = String::from_utf8_lossy(&tar);
    assert!(
        !text.contains(PLANTED),
        "a planted secret reached the bundle"
    );

    let bundle = Bundle::load(&out).expect("the bundle reads back");
    let paths: Vec<&str> = bundle.paths().collect();
    for wanted in [
        "bundle.json",
        "report.txt",
        "report.json",
        "cluster.yaml",
        "cluster-answers.json",
        "repos/checkout-config/answers.json",
    ] {
        assert!(paths.contains(&wanted), "{wanted} in {paths:?}");
    }
    // The cluster part is what the checks read: the planted Job pod with its env value blanked,
    // not the pod and the Secret no check reads.
    let cluster_part = String::from_utf8_lossy(bundle.get("cluster.yaml").expect("cluster"));
    assert!(
        cluster_part.contains("checkout-smoke-test-planted"),
        "{cluster_part}"
    );
    assert!(
        cluster_part.contains("(redacted by labcheck)"),
        "{cluster_part}"
    );
    assert!(!cluster_part.contains("checkout-web-1"), "{cluster_part}");
    assert!(!cluster_part.contains("checkout-db"), "{cluster_part}");
    // The recording holds answers to the questions the run asked: helm/dev.yaml's text, never
    // the planted file's (nor the planted commit's content, which no question reaches).
    let answers = String::from_utf8_lossy(
        bundle
            .get("repos/checkout-config/answers.json")
            .expect("answers"),
    );
    assert!(
        answers.contains("read_file \\\"helm/dev.yaml\\\""),
        "{answers}"
    );
    assert!(!answers.contains("credentials.env") && !answers.contains(PLANTED));
    // Only the files the checks read: helm/dev.yaml, not the planted ones.
    assert!(
        paths.contains(&"repos/checkout-config/files/helm/dev.yaml"),
        "{paths:?}"
    );
    assert!(
        !paths
            .iter()
            .any(|p| p.contains("credentials.env") && p.contains("/files/"))
    );
    let git: Value = serde_json::from_slice(
        bundle
            .get("repos/checkout-config/git.json")
            .expect("git.json"),
    )
    .expect("JSON");
    assert_eq!(git["branch"], "main");
    assert_eq!(git["head"], repo.head_sha().expect("HEAD"));
    let commits = git["commits"].as_array().expect("commits");
    assert!(!commits.is_empty() && commits.len() <= 20, "{git:#}");
    assert_eq!(commits[0]["message"], "keep the database password here\n");
    assert_eq!(commits[0]["changed"], json!(["credentials.env"]));
    assert_eq!(git["status"], json!(["notes.txt"]));
    assert_eq!(git["upstream"]["ahead"], 1);

    // The report is the learner's own run's, in both forms.
    let own_run = [
        "module-10",
        "step-4",
        "--no-wait",
        "--kubeconfig",
        &kc,
        "--work-dir",
        &wd,
    ];
    let own = run(&home, &own_run);
    assert_eq!(
        String::from_utf8_lossy(bundle.get("report.txt").expect("report")),
        own.stdout
    );
    let own_json = run(&home, &[&own_run[..], &["-o", "json"]].concat()).json();
    let bundled: Value =
        serde_json::from_slice(bundle.get("report.json").expect("report.json")).expect("JSON");
    assert_eq!(verdicts(&bundled), verdicts(&own_json));

    // Its cluster part, served, gives the same verdicts with the learner's repos.
    let served_kc = home.join("bundle-kc.yaml");
    let mut serving = Labcheck::new(&home)
        .args(["serve", "--bundle", &o, "--write-kubeconfig"])
        .arg(&served_kc)
        .limit(Duration::from_secs(60))
        .spawn();
    serving.read_until("Press Ctrl-C");
    let skc = served_kc.display().to_string();
    let replayed = tokio::task::spawn_blocking({
        let home = home.clone();
        let (skc, wd) = (skc.clone(), wd.clone());
        move || {
            run(
                &home,
                &[
                    "module-10",
                    "step-4",
                    "--no-wait",
                    "--kubeconfig",
                    &skc,
                    "--work-dir",
                    &wd,
                    "-o",
                    "json",
                ],
            )
        }
    })
    .await
    .expect("ran");
    assert_eq!(verdicts(&replayed.json()), verdicts(&own_json));
    replays_offline(&home, &o, &own_json, own.code, &kc, &wd);
    let kubectl = std::process::Command::new("kubectl")
        .args([
            "--kubeconfig",
            &skc,
            "get",
            "secret",
            "checkout-db",
            "-n",
            "checkout-dev",
            "-o",
            "json",
        ])
        .output();
    if let Ok(kubectl) = kubectl
        && kubectl.status.success()
    {
        assert!(!String::from_utf8_lossy(&kubectl.stdout).contains(PLANTED));
    }
    serving.interrupt();
    let _ = serving.wait_within(Duration::from_secs(10));
    drop(server);

    // The class page takes the bundle as learner ana: her marks are the bundle's verdicts, her
    // report the bundle's words.
    let bundles = root.path().join("bundles");
    std::fs::create_dir_all(&bundles).expect("bundles");
    std::fs::copy(&out, bundles.join("ana.tar.zst")).expect("copied");
    let mut page = Labcheck::new(&home)
        .args(crate::harness::CLASS_SERVE_STEP_4)
        .arg("--bundles")
        .arg(&bundles)
        .limit(Duration::from_secs(60))
        .spawn();
    let url = page.class_page_url();
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let html = http_get(addr, "/");
    for (_, id, status, _) in verdicts(&bundled) {
        let mark = match status.as_str() {
            "pass" => "✓",
            "fail" => "✗",
            "error" => "?",
            _ => "-",
        };
        let cell = format!("data-check=\"{id}\" title=");
        let at = html
            .find(&cell)
            .unwrap_or_else(|| panic!("no cell for {id} in {html}"));
        let rest = &html[at..];
        let shown = rest.split('>').nth(1).and_then(|t| t.split('<').next());
        assert_eq!(shown, Some(mark), "{id}");
    }
    let report = http_get(addr, "/learner/ana");
    assert!(
        report.contains(
            &String::from_utf8_lossy(bundle.get("report.txt").expect("report")).to_string()
        ),
        "{report}"
    );
    assert!(!html.contains(PLANTED) && !report.contains(PLANTED));
    page.interrupt();
    let _ = page.wait_within(Duration::from_secs(10));
}

/// The bundle replays offline to the learner's verdicts; asked about a step it was not made for,
/// a check whose questions it cannot answer is "could not check" (`not-in-bundle`), never a
/// verdict of its own; flags naming another source of answers, and bundles of another module or
/// format, are refused with the reason.
fn replays_offline(home: &Path, bundle: &str, own: &Value, own_code: i32, kc: &str, wd: &str) {
    let replayed = run(
        home,
        &["module-10", "step-4", "--bundle", bundle, "-o", "json"],
    );
    assert_eq!(verdicts(&replayed.json()), verdicts(own));
    assert_eq!(replayed.code, own_code, "{}", replayed.stderr);
    let human = run(home, &["module-10", "step-4", "--bundle", bundle]);
    assert!(!human.stdout.contains(PLANTED));

    // Step 1 from step 4's bundle, against step 1's live run on the same world.
    let live = run(
        home,
        &[
            "module-10",
            "step-1",
            "--no-wait",
            "--kubeconfig",
            kc,
            "--work-dir",
            wd,
            "-o",
            "json",
        ],
    )
    .json();
    let other = run(
        home,
        &["module-10", "step-1", "--bundle", bundle, "-o", "json"],
    )
    .json();
    let (live, other) = (verdicts(&live), verdicts(&other));
    assert_eq!(live.len(), other.len());
    let mut unanswered = 0;
    for (want, got) in live.iter().zip(&other) {
        if got.3 == "not-in-bundle" {
            assert_eq!(got.2, "error", "{got:?}");
            unanswered += 1;
        } else {
            assert_eq!(want, got, "a replayed verdict differs from the live one");
        }
    }
    assert!(
        unanswered > 0,
        "step 4's bundle answered all of step 1: {other:?}"
    );

    for (flags, named) in [
        (vec!["--snapshot", "x.yaml"], "--snapshot"),
        (vec!["--context", "kind-course"], "--context"),
        (vec!["--work-dir", wd], "--work-dir"),
        (vec!["--wait", "30s"], "--wait"),
        (vec!["--watch"], "--watch"),
    ] {
        let refused = Labcheck::new(home)
            .args(["module-10", "step-4", "--bundle", bundle])
            .args(&flags)
            .run();
        assert_eq!(refused.code, 2, "{flags:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains("--bundle cannot be used with")
                && refused.stderr.contains(named),
            "{flags:?}: {}",
            refused.stderr
        );
    }
    let refused = run(home, &["module-11", "step-1", "--bundle", bundle]);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .contains("is a bundle of module-10, not of module-11"),
        "{}",
        refused.stderr
    );
    // A bundle of the format before replays existed.
    let mut old = Bundle::load(Path::new(bundle)).expect("the bundle");
    let about = String::from_utf8_lossy(old.get("bundle.json").expect("bundle.json"))
        .replace("labcheck-bundle/v2", "labcheck-bundle/v1");
    let mut rewritten = Bundle::default();
    for path in old.paths().map(str::to_string).collect::<Vec<_>>() {
        let bytes = if path == "bundle.json" {
            about.clone().into_bytes()
        } else {
            old.get(&path).unwrap_or_default().to_vec()
        };
        rewritten.add(path, bytes);
    }
    old = rewritten;
    let v1 = Path::new(bundle).with_file_name("old.tar.zst");
    std::fs::write(&v1, old.to_tar_zst().expect("packed")).expect("written");
    let refused = run(
        home,
        &["module-10", "step-4", "--bundle", &v1.display().to_string()],
    );
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("is of format labcheck-bundle/v1")
            && refused.stderr.contains("new bundle"),
        "{}",
        refused.stderr
    );
}

/// The body of `GET path` from `addr` (HTTP/1.0: the server closes when done).
fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("the page answers");
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or(answer)
}
