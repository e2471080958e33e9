//! The course's own broken variants whose cluster side matters, made for real on the real Argo CD
//! after the walk, each judged as the course declares it (`modules/module-10/fixtures/*.yaml`:
//! the checks that must fail and, where given, the cause each must fail with). The walk itself
//! already made a migration that fails (step 4) and a smoke test that fails (break-it).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cluster::{Cluster, block_on, get};
use crate::lab::{Lab, MODULE, ok};
use crate::walk::walked;

/// The variant `name` of `step`'s fixture file: the checks it fails and the causes it names.
fn declared(step: &str, name: &str) -> (Vec<String>, Vec<(String, String)>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("modules")
        .join(MODULE)
        .join("fixtures")
        .join(format!("{step}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: Value =
        serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let variant = file["broken"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("{} declares no variant {name}", path.display()));
    let fails = variant["fails"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    let causes = variant["causes"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(id, cause)| (id.clone(), cause.as_str().unwrap_or("").to_string()))
        .collect();
    (fails, causes)
}

/// What differs between a step's JSON report and the variant the course declares, one line each
/// (empty when the verdict is the declared one).
fn judge(report: &Value, step: &str, name: &str) -> Vec<String> {
    let (fails, causes) = declared(step, name);
    let mut problems = Vec::new();
    for check in report["checks"].as_array().into_iter().flatten() {
        let id = check["id"].as_str().unwrap_or("");
        let status = check["status"].as_str().unwrap_or("");
        let summary = check["summary"].as_str().unwrap_or("");
        let declared = fails.iter().any(|f| f == id);
        match (status, declared) {
            ("fail", true) => {
                if let Some((_, want)) = causes.iter().find(|(c, _)| c == id) {
                    let got = check["cause"].as_str().unwrap_or("none");
                    if got != want && got.split_once(':').map(|(c, _)| c) != Some(want.as_str()) {
                        problems.push(format!(
                            "{id} fails with cause {got}, not {want}: {summary}"
                        ));
                    }
                }
            }
            ("fail", false) => problems.push(format!("{id} fails too: {summary}")),
            (_, true) => problems.push(format!("{id} must fail but is {status}: {summary}")),
            ("error", false) => problems.push(format!("{id} could not check: {summary}")),
            _ => {}
        }
    }
    problems
}

/// `labcheck module-10 STEP -o json --no-wait` as the learner runs it.
fn check(lab: &Lab, step: &str) -> Value {
    let output = lab
        .command("labcheck")
        .args([MODULE, step, "-o", "json", "--no-wait"])
        .output()
        .expect("labcheck runs");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "labcheck {step} -o json printed no JSON ({e}):\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Run the course's solution of `step` as the learner would (`labcheck solution … | bash`).
fn solve(lab: &Lab, step: &str) {
    let output = lab
        .command("bash")
        .args(["-c", &format!("labcheck solution {MODULE} {step} | bash")])
        .output()
        .expect("bash runs");
    ok(&output, &format!("the solution of {step}")).unwrap_or_else(|e| panic!("{e}"));
}

/// Run the `argocd` CLI as the learner would.
fn argocd(lab: &Lab, args: &[&str]) {
    let output = lab
        .command("argocd")
        .args(args)
        .output()
        .expect("argocd runs");
    ok(&output, &format!("argocd {}", args.join(" "))).unwrap_or_else(|e| panic!("{e}"));
}

/// Run `script` with bash in the learner's `repo`, as they would type it.
fn shell(lab: &Lab, repo: &str, script: &str) {
    let output = lab
        .command("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(lab.work.join(repo))
        .output()
        .expect("bash runs");
    ok(&output, script).unwrap_or_else(|e| panic!("{e}"));
}

/// The platform team sets how long checkout-dev waits before retrying a failed sync, in git
/// (the app of apps puts back a hand edit of a child Application): pushed, then synced.
fn platform_retry_backoff(cluster: &Cluster, lab: &Lab, duration: &str) {
    shell(
        lab,
        "argocd-platform",
        &format!(
            "labcheck edit set apps/checkout-dev.yaml spec.syncPolicy.retry.backoff.duration --value {duration}
             labcheck edit set apps/checkout-dev.yaml spec.syncPolicy.retry.backoff.maxDuration --value {duration}
             git commit -qam 'checkout-dev: retry after {duration}' && git push -q
             argocd app get platform --refresh >/dev/null"
        ),
    );
    platform_synced_retry(cluster, duration);
}

/// Wait until the app of apps has given checkout-dev a retry backoff of `duration`.
fn platform_synced_retry(cluster: &Cluster, duration: &str) {
    let path = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev";
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let app = block_on(get(&cluster.admin, path)).unwrap_or_else(|e| panic!("{e}"));
        if app["spec"]["syncPolicy"]["retry"]["backoff"]["duration"] == duration {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the platform never synced checkout-dev's retry: {app:#}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// checkout-dev's operation state, once `until` holds of it (two minutes at most).
fn operation_when(
    cluster: &Cluster,
    lab: &Lab,
    what: &str,
    until: impl Fn(&Value) -> bool,
) -> Value {
    let path = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/checkout-dev";
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let app = block_on(get(&cluster.admin, path)).unwrap_or_else(|e| panic!("{e}"));
        let state = &app["status"]["operationState"];
        if until(state) {
            return state.clone();
        }
        if Instant::now() > deadline {
            lab.pause_for_a_look();
            panic!(
                "checkout-dev's operation never became {what}: {state:#}\n{}",
                cluster.logs()
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_sync_still_retrying_then_terminated_then_a_dry_run_give_the_verdicts_the_course_declares() {
    let (cluster, walked, _lab) = walked();
    let lab = &walked.lab;
    // The lab retries once, 10 s after the failure; a long wait before the retry makes the window one
    // the test can read, as an Application with the default backoff has for minutes.
    platform_retry_backoff(cluster, lab, "3m");
    // The broken release again, as step 4 makes it (its solution would say step 4 is replaced
    // by step 5's revert and do nothing).
    shell(
        lab,
        "checkout-config",
        "labcheck edit set helm/dev.yaml image.tag --value 6.7.0
         labcheck edit set helm/dev.yaml migration.fail --after enabled --value true
         git add -- helm/dev.yaml && git commit -qm 'checkout: 6.7.0 with a broken migration, again'
         git push -q && argocd app get checkout-dev --refresh >/dev/null",
    );
    let state = operation_when(cluster, lab, "a retry pending", |s| {
        s["phase"] == "Running" && s["retryCount"].as_i64().unwrap_or(0) >= 1
    });
    if crate::recordings::recording_asked() {
        crate::recordings::record_state(
            cluster,
            lab,
            "step-4-retrying",
            "step-4: the failed attempt of the pushed release waits for its retry",
        );
    }
    let problems = judge(&check(lab, "step-4"), "step-4", "retrying");
    assert!(problems.is_empty(), "retrying: {problems:#?}\n{state:#}");

    argocd(lab, &["app", "terminate-op", "checkout-dev"]);
    let state = operation_when(cluster, lab, "terminated", |s| {
        matches!(s["phase"].as_str(), Some("Failed" | "Error"))
    });
    if crate::recordings::recording_asked() {
        crate::recordings::record_state(
            cluster,
            lab,
            "step-4-terminated",
            "step-4: `argocd app terminate-op` while the sync waited for its retry",
        );
    }
    let problems = judge(&check(lab, "step-4"), "step-4", "terminated");
    assert!(problems.is_empty(), "terminated: {problems:#?}\n{state:#}");

    // Back to where the walk left the lab: the platform's retry, the release reverted.
    shell(
        lab,
        "argocd-platform",
        "git revert --no-edit HEAD >/dev/null && git push -q && argocd app get platform --refresh >/dev/null",
    );
    platform_synced_retry(cluster, "5s");

    // Step 5's revert, pushed; then the learner asks Argo CD what a sync would do instead of
    // syncing: `--dry-run` applies nothing and runs no hook, yet it is the last operation shown.
    shell(
        lab,
        "checkout-config",
        "git revert --no-edit HEAD >/dev/null && git push -q && argocd app get checkout-dev --refresh >/dev/null",
    );
    argocd(lab, &["app", "sync", "checkout-dev", "--dry-run"]);
    let state = operation_when(cluster, lab, "a finished dry run", |s| {
        s["operation"]["sync"]["dryRun"] == true && s["phase"] == "Succeeded"
    });
    if crate::recordings::recording_asked() {
        crate::recordings::record_state(
            cluster,
            lab,
            "step-5-dry-run",
            "step-5: the revert pushed, then a dry run instead of a sync",
        );
    }
    let problems = judge(&check(lab, "step-5"), "step-5", "dry-run");
    assert!(problems.is_empty(), "dry run: {problems:#?}\n{state:#}");
    // The course's solution from there (its revert already done) syncs for real.
    solve(lab, "step-5");
}
