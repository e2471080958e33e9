//! A class checked at once: each learner with their own served cluster and real work repos. The
//! class report gives each learner exactly what their own run gives, groups failures by cause id,
//! and never touches anyone's progress.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::harness::MODULE;
use labcheck::course::Course;
use labcheck::lab::cluster::{self as lab_cluster, Revisions};
use labcheck::lab::fixtures;
use labcheck::serve::{RunningServer, ServeOptions};
use labcheck::snapshot::Snapshot;

use crate::harness::{Run, files_with_bytes, kubeconfig_at, labcheck};
use crate::report_snapshots::assert_report_snapshot;

pub(crate) async fn serve_for(dir: &Path, learner: &str, snapshot: Snapshot) -> RunningServer {
    let server = crate::harness::serve(snapshot, ServeOptions::default()).await;
    kubeconfig_at(
        &dir.join(format!("{learner}.yaml")),
        &server.url(),
        "labcheck",
    );
    server
}

/// What a learner did, with the cluster Argo CD left them.
#[derive(Clone, Copy)]
pub(crate) enum Did {
    /// Steps 1–4 done and synced.
    Step4,
    /// Step 4 committed but never pushed; the cluster is as after step 3.
    Step4NotPushed,
    /// Step 5 done (step 4 reverted, synced): step 4's state was replaced.
    Step5,
}

impl Did {
    /// The state of the course's fixtures this is: (step, `solved` or a broken variant).
    pub(crate) fn fixture_state(self) -> (&'static str, &'static str) {
        match self {
            Did::Step4 => ("step-4", "solved"),
            Did::Step4NotPushed => ("step-4", "not-pushed"),
            Did::Step5 => ("step-5", "solved"),
        }
    }
}

pub(crate) struct Learner {
    pub(crate) name: &'static str,
    pub(crate) did: Did,
    /// Whether their clones are where `--work-dirs` points.
    pub(crate) work_dir: bool,
}

/// A class: served clusters, kubeconfigs in one folder, work repos under `ROOT/{learner}/work`
/// (a learner without a work dir has their world elsewhere, so only their cluster is there).
pub(crate) struct Class {
    pub(crate) root: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) kubeconfigs: PathBuf,
    pub(crate) learners: Vec<&'static str>,
    pub(crate) servers: Vec<RunningServer>,
}

impl Class {
    pub(crate) async fn new(root: &Path, learners: &[Learner]) -> Class {
        let kubeconfigs = root.join("kubeconfigs");
        let home = root.join("instructor");
        std::fs::create_dir_all(&kubeconfigs).expect("kubeconfig folder");
        std::fs::create_dir_all(&home).expect("instructor's home");
        let mut servers = Vec::new();
        for learner in learners {
            let at = if learner.work_dir {
                root.join(learner.name)
            } else {
                root.join("elsewhere").join(learner.name)
            };
            let (step, state) = learner.did.fixture_state();
            let world = labcheck::lab::cache::in_state(&at, MODULE, step, state).expect("lab");
            let revs = Revisions::of_world(&world).expect("revisions");
            let fixture = fixtures::state(MODULE, step, state).expect("a fixture state");
            let cluster = lab_cluster::of_state(fixture, &revs).expect("a fixture state");
            drop(world);
            servers.push(serve_for(&kubeconfigs, learner.name, cluster).await);
        }
        Class {
            root: root.to_path_buf(),
            home,
            kubeconfigs,
            learners: learners.iter().map(|l| l.name).collect(),
            servers,
        }
    }

    pub(crate) fn work_dirs(&self) -> String {
        format!("{}/{{learner}}/work", self.root.display())
    }

    pub(crate) fn work_dir(&self, learner: &str) -> PathBuf {
        self.root.join(learner).join("work")
    }

    /// `labcheck ARGS` as the instructor, in their own home.
    pub(crate) async fn labcheck(&self, args: Vec<String>) -> Run {
        let home = self.home.clone();
        tokio::task::spawn_blocking(move || {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            labcheck(&home, &refs)
        })
        .await
        .expect("labcheck ran")
    }

    /// The class run of `target` (module, maybe a step) with `args`.
    pub(crate) async fn run(&self, target: &[&str], work_dirs: bool, args: &[&str]) -> Run {
        let mut all: Vec<String> = target.iter().map(|a| a.to_string()).collect();
        all.extend([
            "--no-wait".to_string(),
            "--kubeconfigs".to_string(),
            self.kubeconfigs.display().to_string(),
        ]);
        if work_dirs {
            all.extend(["--work-dirs".to_string(), self.work_dirs()]);
        }
        all.extend(args.iter().map(|a| a.to_string()));
        self.labcheck(all).await
    }

    /// `learner`'s own run of `target`, as JSON: their cluster, their work dir.
    pub(crate) async fn own(&self, learner: &str, target: &[&str]) -> serde_json::Value {
        let mut all: Vec<String> = target.iter().map(|a| a.to_string()).collect();
        let kubeconfig = self.kubeconfigs.join(format!("{learner}.yaml"));
        all.extend([
            "--no-wait".to_string(),
            "--kubeconfig".to_string(),
            kubeconfig.display().to_string(),
            "--work-dir".to_string(),
            self.work_dir(learner).display().to_string(),
            "--format".to_string(),
            "json".to_string(),
        ]);
        self.labcheck(all).await.json()
    }
}

pub(crate) fn mixed() -> Vec<Learner> {
    vec![
        Learner {
            name: "alice",
            did: Did::Step4,
            work_dir: true,
        },
        Learner {
            name: "bob",
            did: Did::Step4NotPushed,
            work_dir: true,
        },
        Learner {
            name: "carol",
            did: Did::Step5,
            work_dir: true,
        },
        Learner {
            name: "dave",
            did: Did::Step4,
            work_dir: false,
        },
    ]
}

fn learner<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["learners"]
        .as_array()
        .and_then(|l| l.iter().find(|x| x["learner"] == name))
        .unwrap_or_else(|| panic!("no learner {name} in {json:#}"))
}

fn steps(json: &serde_json::Value) -> Vec<serde_json::Value> {
    json["steps"].as_array().cloned().unwrap_or_default()
}

fn step<'a>(steps: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    steps
        .iter()
        .find(|s| s["step"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// `(step, check id)` of every check of module 10 that reads a work repo.
fn repo_checks() -> BTreeSet<(String, String)> {
    let course = Course::embedded().expect("the course loads");
    let module = course.module("module-10").expect("module 10");
    let mut out = BTreeSet::new();
    for step in &module.steps {
        for check in &step.checks {
            if !check.kind.repos().is_empty() {
                out.insert((step.name.clone(), check.id.clone()));
            }
        }
        if step.after.is_some() {
            out.insert((step.name.clone(), "break-came-first".to_string()));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_learner_of_a_mixed_class_gets_exactly_their_own_report() {
    let root = tempfile::tempdir().expect("a temp dir");
    let class = Class::new(root.path(), &mixed()).await;
    let before_home = files_with_bytes(&class.home);
    let before_work: Vec<_> = ["alice", "bob", "carol"]
        .iter()
        .map(|l| files_with_bytes(&class.work_dir(l)))
        .collect();

    let run = class.run(&["module-10"], true, &["--format", "json"]).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = run.json();

    for name in ["alice", "bob", "carol"] {
        let own = class.own(name, &["module-10"]).await;
        assert_eq!(
            learner(&json, name)["steps"],
            own["steps"],
            "{name}'s class report differs from their own run"
        );
        assert_eq!(learner(&json, name)["status"], own["status"], "{name}");
    }
    let alice = steps(learner(&json, "alice"));
    assert_eq!(step(&alice, "step-4")["status"], "pass");
    let bob = steps(learner(&json, "bob"));
    assert_eq!(step(&bob, "step-4")["status"], "fail");
    // carol's step 4 was replaced by her step 5: skipped, as in her own run, never failed.
    let carol = steps(learner(&json, "carol"));
    assert_eq!(step(&carol, "step-5")["status"], "pass");
    assert_eq!(step(&carol, "step-4")["status"], "skip");
    assert!(
        step(&carol, "step-4")["checks"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["summary"]
                .as_str()
                .is_some_and(|s| s.starts_with("replaced by step-5"))),
        "{:#}",
        step(&carol, "step-4")
    );

    // dave has no work dir: his repo checks could not be checked, his cluster checks still ran
    // and agree with a run of his cluster with his repos; no step with a repo check passes.
    let repo_checks = repo_checks();
    let dave = steps(learner(&json, "dave"));
    let elsewhere = class
        .labcheck(vec![
            "module-10".into(),
            "--no-wait".into(),
            "--kubeconfig".into(),
            class.kubeconfigs.join("dave.yaml").display().to_string(),
            "--work-dir".into(),
            class.root.join("elsewhere/dave/work").display().to_string(),
            "--format".into(),
            "json".into(),
        ])
        .await
        .json();
    let his_own = steps(&elsewhere);
    let mut cluster_marks = 0;
    for s in &dave {
        let name = s["step"].as_str().unwrap_or_default();
        let mut reads_repos = false;
        for check in s["checks"].as_array().into_iter().flatten() {
            let id = check["id"].as_str().unwrap_or_default();
            if repo_checks.contains(&(name.to_string(), id.to_string())) {
                reads_repos = true;
                assert_eq!(check["status"], "error", "{name} {id}: {check:#}");
                assert_eq!(
                    check["summary"], "no work dir for this learner",
                    "{check:#}"
                );
                assert_eq!(check["cause"], "no-work-dir", "{check:#}");
            } else {
                let own = step(&his_own, name)["checks"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["id"] == id).cloned())
                    .unwrap_or_default();
                // A check gated on an event its own run saw missing in his repos, or waiting on
                // one (`after:`), cannot be gated where the repos are not read: only the others
                // compare.
                if own["cause"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("event-"))
                    || own["summary"]
                        .as_str()
                        .is_some_and(|s| s.contains("this counts only after"))
                {
                    continue;
                }
                assert_eq!(check["status"], own["status"], "{name} {id}");
                cluster_marks += usize::from(check["status"] == "pass");
            }
        }
        if reads_repos {
            assert_ne!(s["status"], "pass", "{name} passed without dave's repos");
        }
    }
    assert!(cluster_marks > 0, "dave's cluster checks ran: {dave:#?}");

    // Nobody's progress was written, and no learner's repo was touched.
    assert_eq!(files_with_bytes(&class.home), before_home);
    for (l, before) in ["alice", "bob", "carol"].iter().zip(before_work) {
        assert_eq!(files_with_bytes(&class.work_dir(l)), before, "{l}");
    }
    for server in &class.servers {
        assert!(!server.requests.entries().is_empty());
        assert!(server.requests.writes().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_class_run_writes_no_progress_for_anyone() {
    let root = tempfile::tempdir().expect("a temp dir");
    let class = Class::new(root.path(), &mixed()[..2]).await;
    let before = files_with_bytes(&class.home);
    let run = class.run(&["module-10", "step-4"], true, &[]).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(files_with_bytes(&class.home), before, "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn causes_group_across_learners_with_one_line_per_check_and_cause() {
    let root = tempfile::tempdir().expect("a temp dir");
    let mut learners = mixed();
    learners.push(Learner {
        name: "erin",
        did: Did::Step4NotPushed,
        work_dir: true,
    });
    let class = Class::new(root.path(), &learners).await;
    let json = class
        .run(&["module-10", "step-4"], true, &["--format", "json"])
        .await
        .json();

    // Every failure and could-not-check carries a cause id; learners are grouped by exactly the
    // (step, check, cause) their own report shows.
    let mut expected: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    let mut without_work_dir = BTreeSet::new();
    for name in &class.learners {
        for s in steps(learner(&json, name)) {
            for check in s["checks"].as_array().into_iter().flatten() {
                if check["status"] != "fail" && check["status"] != "error" {
                    continue;
                }
                let cause = check["cause"]
                    .as_str()
                    .unwrap_or_else(|| panic!("no cause: {check:#}"));
                if cause == "no-work-dir" {
                    without_work_dir.insert(name.to_string());
                    continue;
                }
                let key = (
                    s["step"].as_str().unwrap_or_default().to_string(),
                    check["id"].as_str().unwrap_or_default().to_string(),
                    cause.to_string(),
                );
                expected.entry(key).or_default().push(name.to_string());
            }
        }
    }
    let groups = json["causes"]["groups"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let got: BTreeMap<(String, String, String), Vec<String>> = groups
        .iter()
        .map(|g| {
            let key = (
                g["step"].as_str().unwrap_or_default().to_string(),
                g["check"].as_str().unwrap_or_default().to_string(),
                g["cause"].as_str().unwrap_or_default().to_string(),
            );
            let learners = g["learners"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect();
            (key, learners)
        })
        .collect();
    assert_eq!(
        got.len(),
        groups.len(),
        "one group per (step, check, cause)"
    );
    assert_eq!(got, expected);
    let no_work_dir: BTreeSet<String> = json["causes"]["without_work_dir"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["learner"].as_str().map(str::to_string))
        .collect();
    assert_eq!(no_work_dir, BTreeSet::from(["dave".to_string()]));
    assert_eq!(without_work_dir, no_work_dir);

    // bob and erin did the same thing: one group, one hint, their paths as a placeholder.
    let unpushed = groups
        .iter()
        .find(|g| g["check"] == "release-pushed")
        .expect("a group for release-pushed");
    assert_eq!(unpushed["learners"], serde_json::json!(["bob", "erin"]));
    let hints = unpushed["hints"].as_array().cloned().unwrap_or_default();
    assert_eq!(hints.len(), 1, "{unpushed:#}");
    let hint = hints[0]["hint"].as_str().unwrap_or_default();
    assert!(hint.contains("<work-dir>"), "{hint}");
    assert!(!hint.contains(&class.root.display().to_string()), "{hint}");

    // The human view: one line per group, dave once, a "(see above)" only below its cause.
    let run = class.run(&["module-10", "step-4"], true, &[]).await;
    let out = &run.stdout;
    assert_eq!(
        out.matches("no work dir for this learner").count(),
        1,
        "dave is told once: {out}"
    );
    assert!(
        out.contains("  dave: no work dir for this learner — "),
        "{out}"
    );
    let cause = unpushed["cause"].as_str().unwrap_or_default();
    let line = format!("  2 learners: step-4 release-pushed {cause} — ");
    assert_eq!(out.matches(&line).count(), 1, "{out}");
    assert!(out.contains("      bob, erin\n"), "{out}");
    assert_eq!(
        out.matches(&format!(
            "      hint: {}\n",
            hint.replace('\n', "\n            ")
        ))
        .count(),
        1,
        "the hint is shown once: {out}"
    );
    let by_cause = out.split("By cause:").nth(1).unwrap_or_default();
    for (i, line) in by_cause.lines().enumerate() {
        if let Some(title) = line
            .split("first: ")
            .nth(1)
            .and_then(|rest| rest.split(" (see above)").next())
            .filter(|_| line.contains("(see above)"))
        {
            let above: Vec<&str> = by_cause.lines().take(i).collect();
            assert!(
                above.iter().any(|l| l.contains(title)),
                "`{title}` is not above line {i}:\n{by_cause}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_work_dirs_repo_checks_could_not_be_checked_once_per_learner() {
    let root = tempfile::tempdir().expect("a temp dir");
    let class = Class::new(root.path(), &mixed()[..2]).await;
    let run = class.run(&["module-10", "step-4"], false, &[]).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let out = &run.stdout;
    for name in ["alice", "bob"] {
        assert_eq!(
            out.matches(&format!("  {name}: no work dir for this learner — "))
                .count(),
            1,
            "{out}"
        );
    }
    assert!(out.contains("--work-dirs 'DIR/{learner}'"), "{out}");
    // alice's cluster checks still show their marks; no step passes without her repos.
    assert!(
        out.contains("  alice    ?  ?  ?  ?  ?  ✓  ✓  ✓  ✓  ✓  error"),
        "{out}"
    );
    assert!(!out.contains("  pass\n"), "{out}");
}

/// The counts a TAP consumer (Perl's TAP::Parser, behind `prove`) reads from `tap`: tests, failed,
/// plan, and its parse errors. A subtest cut out of a TAP 13 document has no version line, which
/// TAP::Parser reads as TAP 12: no parse error either.
fn tap_parse(tap: &str) -> (usize, usize, String, Vec<String>) {
    let script = r#"
        use TAP::Parser;
        local $/; my $tap = <STDIN>;
        my $p = TAP::Parser->new({ tap => $tap });
        while (my $r = $p->next) {}
        print join("\t", scalar($p->tests_run), scalar($p->failed), $p->plan), "\n";
        print "$_\n" for $p->parse_errors;
    "#;
    let mut child = std::process::Command::new("perl")
        .args(["-e", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("perl runs (prove's TAP::Parser)");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(tap.as_bytes()).expect("TAP written");
    }
    let out = child.wait_with_output().expect("perl ends");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    let counts: Vec<String> = lines
        .next()
        .unwrap_or_default()
        .split('\t')
        .map(str::to_string)
        .collect();
    let errors = lines.map(str::to_string).collect();
    (
        counts.first().and_then(|n| n.parse().ok()).unwrap_or(0),
        counts.get(1).and_then(|n| n.parse().ok()).unwrap_or(0),
        counts.get(2).cloned().unwrap_or_default(),
        errors,
    )
}

/// The lines of subtest `name` at `indent`, un-indented into a TAP document of their own.
fn subtest(tap: &str, name: &str, indent: &str) -> String {
    let header = format!("{indent}# Subtest: {name}");
    let inner = format!("{indent}    ");
    let body: Vec<&str> = tap
        .lines()
        .skip_while(|l| *l != header)
        .skip(1)
        .take_while(|l| l.starts_with(&inner))
        .map(|l| &l[inner.len()..])
        .collect();
    body.join("\n") + "\n"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn class_junit_and_tap_have_one_suite_per_learner_and_parse() {
    let root = tempfile::tempdir().expect("a temp dir");
    let class = Class::new(root.path(), &mixed()).await;
    let json = class
        .run(&["module-10"], true, &["--format", "json"])
        .await
        .json();
    let checks_of = |name: &str| -> Vec<String> {
        steps(learner(&json, name))
            .iter()
            .flat_map(|s| s["checks"].as_array().cloned().unwrap_or_default())
            .map(|c| c["status"].as_str().unwrap_or_default().to_string())
            .collect()
    };

    let file = root.path().join("class.xml");
    let junit = class
        .run(
            &["module-10"],
            true,
            &["--format", "junit", "--output", &file.display().to_string()],
        )
        .await;
    assert_eq!(junit.code, 1, "{}", junit.stderr);
    assert!(
        junit.stdout.contains("By cause:"),
        "the terminal gets the class view"
    );
    let xml = std::fs::read_to_string(&file).expect("the JUnit file");
    let suites = junit_suites(&xml);
    assert_eq!(
        suites.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        class.learners
    );
    for suite in &suites {
        let statuses = checks_of(&suite.name);
        let count = |s: &str| statuses.iter().filter(|x| *x == s).count();
        assert_eq!(suite.cases, statuses.len(), "{}", suite.name);
        assert_eq!(suite.tests, suite.cases, "{}: tests= agrees", suite.name);
        assert_eq!(suite.failures, count("fail"), "{}", suite.name);
        assert_eq!(suite.errors, count("error"), "{}", suite.name);
        assert_eq!(suite.failure_elements, count("fail"), "{}", suite.name);
        assert_eq!(suite.error_elements, count("error"), "{}", suite.name);
    }

    let tap = class
        .run(&["module-10"], true, &["--format", "tap"])
        .await
        .stdout;
    let (tests, failed, plan, errors) = tap_parse(&tap);
    assert_eq!((tests, plan.as_str()), (4, "1..4"), "{tap}");
    assert!(errors.is_empty(), "{errors:?}\n{tap}");
    let (proved, report) = crate::harness::prove(root.path(), &tap);
    assert_ne!(
        proved, 0,
        "prove fails a class where a learner failed:\n{report}"
    );
    assert!(!report.contains("Parse errors"), "{report}");
    let not_passing = class
        .learners
        .iter()
        .filter(|l| learner(&json, l)["status"] != "pass")
        .count();
    assert_eq!(failed, not_passing, "{tap}");
    assert!(
        report.contains(&format!("Failed {not_passing}/4 subtests")),
        "prove fails the learners the report fails:\n{report}"
    );
    for name in &class.learners {
        let theirs = subtest(&tap, name, "");
        let (tests, failed, _, errors) = tap_parse(&theirs);
        let steps = steps(learner(&json, name));
        assert_eq!(tests, steps.len(), "{name}:\n{theirs}");
        assert!(errors.is_empty(), "{errors:?}\n{theirs}");
        let failing = steps
            .iter()
            .filter(|s| s["status"] == "fail" || s["status"] == "error")
            .count();
        assert_eq!(failed, failing, "{name}");
        let step_4 = subtest(&theirs, "module-10 step-4", "");
        let (checks, _, _, errors) = tap_parse(&step_4);
        assert_eq!(
            checks,
            step(&steps, "step-4")["checks"]
                .as_array()
                .map_or(0, Vec::len)
        );
        assert!(errors.is_empty(), "{errors:?}\n{step_4}");
    }
}

struct Suite {
    name: String,
    tests: usize,
    failures: usize,
    errors: usize,
    cases: usize,
    failure_elements: usize,
    error_elements: usize,
}

/// The test suites of a JUnit document, read with a real XML parser (which fails on anything
/// that is not well-formed XML): their attributes and what they hold.
fn junit_suites(xml: &str) -> Vec<Suite> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut suites = Vec::new();
    let mut path: Vec<String> = Vec::new();
    loop {
        let event = reader
            .read_event()
            .unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{xml}"));
        let (start, name, attributes) = match &event {
            Event::Start(e) => (true, e.name(), Some(e.attributes())),
            Event::Empty(e) => (false, e.name(), Some(e.attributes())),
            Event::End(_) => {
                path.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = String::from_utf8_lossy(name.as_ref()).into_owned();
        let attrs: BTreeMap<String, String> = attributes
            .into_iter()
            .flatten()
            .map(|a| {
                let a = a.expect("a well-formed attribute");
                let value = a
                    .normalized_value(quick_xml::XmlVersion::Explicit1_0)
                    .expect("an attribute value")
                    .into_owned();
                (String::from_utf8_lossy(a.key.as_ref()).into_owned(), value)
            })
            .collect();
        let parent = path.last().map(String::as_str);
        match (name.as_str(), parent) {
            ("testsuites", None) => {}
            ("testsuite", Some("testsuites")) => {
                let number = |k: &str| attrs.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
                suites.push(Suite {
                    name: attrs.get("name").cloned().unwrap_or_default(),
                    tests: number("tests"),
                    failures: number("failures"),
                    errors: number("errors"),
                    cases: 0,
                    failure_elements: 0,
                    error_elements: 0,
                });
            }
            ("testcase", Some("testsuite")) => {
                suites.last_mut().expect("a suite").cases += 1;
                assert!(attrs.contains_key("name") && attrs.contains_key("classname"));
            }
            ("failure", Some("testcase")) => {
                suites.last_mut().expect("a suite").failure_elements += 1;
            }
            ("error", Some("testcase")) => {
                suites.last_mut().expect("a suite").error_elements += 1;
            }
            ("properties", Some("testsuite"))
            | ("property", Some("properties"))
            | ("skipped", Some("testcase")) => {}
            (other, parent) => panic!("<{other}> inside {parent:?} is not JUnit"),
        }
        if start {
            path.push(name);
        }
    }
    suites
}

#[test]
fn watch_with_a_class_is_refused_with_a_message() {
    let home = tempfile::tempdir().expect("a temp dir");
    for class in [
        &["--learners", "alice,bob"][..],
        &["--kubeconfigs", "kubeconfigs"],
        &["--contexts", "alice,bob"],
    ] {
        let args = [&["module-10", "step-4", "--watch"][..], class].concat();
        let run = labcheck(home.path(), &args);
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        run.assert_stderr_has(&["'--watch' cannot be used with"]);
    }
    let next = labcheck(home.path(), &["next", "--learners", "alice,bob"]);
    assert_eq!(next.code, 2, "{}", next.stderr);
    next.assert_stderr_has(&["for a class, name the step"]);
}

#[test]
fn a_namespace_template_without_learner_is_refused() {
    let home = tempfile::tempdir().expect("a temp dir");
    let run = labcheck(
        home.path(),
        &[
            "module-10",
            "step-4",
            "--learners",
            "alice,bob",
            "--namespace-template",
            "checkout-dev",
        ],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("--namespace-template `checkout-dev` has no {learner}"),
        "{}",
        run.stderr
    );
}

/// The class reports of the mixed class for step 4, in every format: a reviewed change when the
/// wording or a field moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn class_reports_of_step_4_in_every_format() {
    let root = tempfile::tempdir().expect("a temp dir");
    let class = Class::new(root.path(), &mixed()).await;
    for format in crate::report_snapshots::formats() {
        let run = class
            .run(&["module-10", "step-4"], true, &["--format", format])
            .await;
        assert_eq!(run.code, 1, "bob forgot to push: {}", run.stderr);
        assert_report_snapshot(&format!("class_step_4_{format}"), &run.stdout, root.path());
    }
}
