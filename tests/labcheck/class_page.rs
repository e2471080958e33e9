//! The instructor's room in a real browser: `labcheck class serve` for a class of mixed learners
//! (served clusters, real git worlds), read by headless Chromium through chromedriver. The page's
//! marks are the class run's, a learner's push shows within a second, a learner whose cluster
//! stops answering stays on the page and says so, and a learner's report opens from the keyboard
//! in the words of their own terminal.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::{Value, json};

use crate::fleet::{Class, Did, Learner, mixed};
use crate::harness::{Labcheck, Spawned};

/// A Secret value planted in a learner's cluster: it must never reach the page.
const PLANTED: &str = "planted-secret-value-4242";

/// chromedriver on a free port, ended when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first of `names` on PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

async fn start_driver(chromedriver: &Path) -> Driver {
    let port = free_port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen within 20 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    driver
}

async fn browser(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_string(),
        json!({
            "binary": chromium.display().to_string(),
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-dev-shm-usage", "--window-size=1400,1000",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a Chromium session through chromedriver")
}

/// Every mark on the page: `{step: {learner: {check: mark}}}`, and each learner's status cell.
const READ_MARKS: &str = r#"
const out = {marks: {}, state: {}};
for (const section of document.querySelectorAll('section.step')) {
  const step = section.dataset.step;
  out.marks[step] = {};
  for (const row of section.querySelectorAll('tr[data-learner]')) {
    const learner = row.dataset.learner;
    out.marks[step][learner] = {};
    for (const cell of row.querySelectorAll('td.mark')) {
      out.marks[step][learner][cell.dataset.check] = cell.textContent;
    }
    out.state[learner] = row.querySelector('td.state').textContent;
  }
}
out.counts = (document.getElementById('counts') || {}).textContent || '';
return out;
"#;

async fn page(client: &Client) -> Value {
    client
        .execute(READ_MARKS, vec![])
        .await
        .expect("the page runs script")
}

/// Wait until `done` holds for the page (polling every 25 ms), up to `limit`; the page then.
async fn until(
    client: &Client,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> (Value, Duration) {
    let started = Instant::now();
    loop {
        let now = page(client).await;
        if done(&now) {
            return (now, started.elapsed());
        }
        assert!(
            started.elapsed() < limit,
            "the page did not get there within {limit:?}: {now:#}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The terminal's class mark of a status (`report::matrix`'s).
fn mark(status: &str) -> &'static str {
    match status {
        "pass" => "✓",
        "fail" => "✗",
        "error" => "?",
        _ => "-",
    }
}

/// erin's cluster as its own `labcheck serve` process (so that ending it closes every connection,
/// as a cluster that goes away does), with a Secret holding [`PLANTED`].
fn serve_erin(class: &Class, root: &Path) -> Spawned {
    let at = root.join("erin");
    let (_world, cluster) = crate::harness::step_4_solved(&at);
    let cluster = cluster.with_object(json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "checkout-db", "namespace": "checkout-dev"},
            "stringData": {"password": PLANTED}}));
    let file = root.join("erin-cluster.yaml");
    std::fs::write(&file, cluster.to_yaml().expect("yaml")).expect("written");
    let kubeconfig = class.kubeconfigs.join("erin.yaml");
    let mut server = Labcheck::new(&class.home)
        .args(["serve", &file.display().to_string(), "--write-kubeconfig"])
        .arg(&kubeconfig)
        .spawn();
    server.read_until("Press Ctrl-C");
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_class_page_shows_the_class_live_in_a_real_browser() {
    let (Some(chromium), Some(chromedriver)) = (
        on_path(&["chromium", "chromium-browser"]),
        on_path(&["chromedriver"]),
    ) else {
        eprintln!(
            "SKIPPED the_class_page_shows_the_class_live_in_a_real_browser: chromium and chromedriver are not installed (apt-get install chromium chromium-driver; .ci/run installs them)"
        );
        return;
    };
    let root = tempfile::tempdir().expect("a temp dir");
    let mut learners = mixed();
    learners.push(Learner {
        name: "erin",
        did: Did::Step4,
        work_dir: true,
    });
    // erin's cluster is served below, by a process of its own.
    let class = Class::new(root.path(), &learners[..4]).await;
    let erin = serve_erin(&class, root.path());

    let mut page_server = Labcheck::new(&class.home)
        .args(crate::harness::CLASS_SERVE_STEP_4)
        .arg("--kubeconfigs")
        .arg(&class.kubeconfigs)
        .args(["--work-dirs", &class.work_dirs()])
        .spawn();
    let url = page_server.class_page_url();

    let driver = start_driver(&chromedriver).await;
    let client = browser(&driver, &chromium, &root.path().join("profile")).await;
    client.goto(&url).await.expect("the page loads");

    // The marks are the class run's, learner by learner and check by check.
    let (shown, _) = until(&client, Duration::from_secs(30), |p| {
        !p["counts"]
            .as_str()
            .unwrap_or_default()
            .contains("checking")
            && p["marks"]["step-4"]
                .as_object()
                .is_some_and(|m| m.len() == 5)
    })
    .await;
    let run = class
        .run(&["module-10", "step-4"], true, &["--format", "json"])
        .await
        .json();
    for learner in run["learners"].as_array().into_iter().flatten() {
        let name = learner["learner"].as_str().unwrap_or_default();
        for check in learner["steps"][0]["checks"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let id = check["id"].as_str().unwrap_or_default();
            assert_eq!(
                shown["marks"]["step-4"][name][id],
                mark(check["status"].as_str().unwrap_or_default()),
                "{name} {id} on the page: {shown:#}"
            );
        }
    }
    let bob = &shown["marks"]["step-4"]["bob"];
    assert_eq!(bob["release-pushed"], "✗", "{shown:#}");
    assert_eq!(shown["marks"]["step-4"]["alice"]["release-pushed"], "✓");
    assert_eq!(shown["marks"]["step-4"]["dave"]["release-pushed"], "?");
    assert!(
        shown["counts"]
            .as_str()
            .unwrap_or_default()
            .contains("5 learners")
    );

    // No Secret value anywhere on the page or in a learner's report.
    let source = client.source().await.expect("the page's source");
    assert!(!source.contains(PLANTED), "a Secret value reached the page");

    // bob pushes: his mark turns within a second of the push.
    let bob_repo = class.work_dir("bob").join("checkout-config");
    let pushed = Instant::now();
    let out = Command::new("git")
        .args(["push", "-q", "origin", "HEAD"])
        .current_dir(&bob_repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git push runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    until(&client, Duration::from_secs(5), |p| {
        p["marks"]["step-4"]["bob"]["release-pushed"] == "✓"
    })
    .await;
    let took = pushed.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "bob's push showed after {took:?}"
    );

    // erin's cluster goes away: she stays on the page, marked as not answering.
    drop(erin);
    let (gone, _) = until(&client, Duration::from_secs(15), |p| {
        p["state"]["erin"]
            .as_str()
            .is_some_and(|s| s.contains("cluster not answering"))
    })
    .await;
    assert!(gone["marks"]["step-4"]["erin"].is_object(), "{gone:#}");
    assert!(
        gone["counts"]
            .as_str()
            .unwrap_or_default()
            .contains("cluster not answering: 1")
    );

    // `LABCHECK_CLASS_SCREENSHOT=docs/class-page.png` keeps a picture for the README.
    if let Ok(to) = std::env::var("LABCHECK_CLASS_SCREENSHOT") {
        let png = client.screenshot().await.expect("a screenshot");
        std::fs::write(&to, png).expect("the screenshot is written");
    }

    // The keyboard opens bob's report: the words of his own terminal.
    let own = class
        .labcheck(vec![
            "module-10".into(),
            "step-4".into(),
            "--no-wait".into(),
            "--kubeconfig".into(),
            class.kubeconfigs.join("bob.yaml").display().to_string(),
            "--work-dir".into(),
            class.work_dir("bob").display().to_string(),
        ])
        .await;
    client
        .execute(
            "document.querySelector('button.learner[data-learner=\"bob\"]').focus();",
            vec![],
        )
        .await
        .expect("focus");
    let focused = client.active_element().await.expect("the focused element");
    focused.send_keys("\u{E007}").await.expect("Enter");
    let started = Instant::now();
    let text = loop {
        let text = client
            .execute(
                "const d = document.getElementById('report'); return d.open ? document.getElementById('report-text').textContent : null;",
                vec![],
            )
            .await
            .expect("the dialog");
        if let Some(text) = text.as_str().filter(|t| *t != "loading…") {
            break text.to_string();
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no report opened"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert_eq!(
        text, own.stdout,
        "bob's report on the page is not his own run's"
    );
    assert!(!text.contains(PLANTED));

    let active = client.active_element().await.expect("focus");
    active.send_keys("\u{E00C}").await.expect("Escape");
    let closed = client
        .execute(
            "return [document.getElementById('report').open, document.activeElement.dataset.learner];",
            vec![],
        )
        .await
        .expect("the dialog");
    assert_eq!(
        closed,
        json!([false, "bob"]),
        "Escape closes the report and returns to bob"
    );

    let _ = client.close().await;
    page_server.interrupt();
    let stopped = page_server.wait_within(Duration::from_secs(10));
    assert_eq!(stopped.code, 0, "{}{}", stopped.stdout, stopped.stderr);
}
