//! Real refusal: a learner whose RBAC lacks one read (get on Applications, get on pods/log, a
//! namespace at all) gets "could not check" from every check that needs it, naming the verb,
//! resource and namespace the real API server refused and the role that would allow it; nothing
//! is reported as failed, and what the learner may read is still judged.

use std::sync::Arc;

use serde_json::{Value, json};

use labcheck::course::Course;
use labcheck::outcome::Status;
use labcheck::probe::cluster::{Cluster, ClusterOptions};

use crate::api::expect;
use crate::plane::{Plane, block_on, plane};
use crate::same_verdicts::run_on;

/// What a course cluster's read-only learner may read: everything labcheck reads, in every
/// namespace.
fn read_rules() -> Vec<Value> {
    vec![
        json!({"apiGroups": [""], "resources": ["pods", "pods/log", "configmaps", "namespaces", "events", "services"], "verbs": ["get", "list", "watch"]}),
        json!({"apiGroups": ["apps"], "resources": ["deployments", "replicasets", "statefulsets"], "verbs": ["get", "list", "watch"]}),
        json!({"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "watch"]}),
        json!({"apiGroups": ["argoproj.io"], "resources": ["applications", "appprojects"], "verbs": ["get", "list", "watch"]}),
        json!({"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["get", "list", "watch"]}),
    ]
}

/// `rules` minus `verb` on `resource` (`applications`, `pods/log`).
fn without(rules: Vec<Value>, resource: &str, verb: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for rule in rules {
        let resources: Vec<&str> = rule["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !resources.contains(&resource) {
            out.push(rule);
            continue;
        }
        let others: Vec<&str> = resources
            .iter()
            .copied()
            .filter(|r| *r != resource)
            .collect();
        if !others.is_empty() {
            out.push(json!({"apiGroups": rule["apiGroups"], "resources": others, "verbs": rule["verbs"]}));
        }
        let verbs: Vec<&str> = rule["verbs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|v| *v != verb)
            .collect();
        out.push(json!({"apiGroups": rule["apiGroups"], "resources": [resource], "verbs": verbs}));
    }
    out
}

/// A user bound to a ClusterRole of `rules`, cluster-wide or only in `namespaces`.
fn learner(
    plane: &Plane,
    name: &str,
    rules: Vec<Value>,
    namespaces: Option<&[&str]>,
) -> ClusterOptions {
    let admin = &plane.admin;
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    block_on(async {
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name}, "rules": rules});
        expect(admin, "POST", &format!("{rbac}/clusterroles"), Some(&role), &[201]).await?;
        let subject = json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}]);
        let role_ref = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name});
        match namespaces {
            None => {
                let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": name}, "subjects": subject, "roleRef": role_ref});
                expect(admin, "POST", &format!("{rbac}/clusterrolebindings"), Some(&binding), &[201]).await?;
            }
            Some(namespaces) => {
                for ns in namespaces {
                    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                        "metadata": {"name": name, "namespace": ns}, "subjects": subject, "roleRef": role_ref});
                    expect(admin, "POST", &format!("{rbac}/namespaces/{ns}/rolebindings"), Some(&binding), &[201]).await?;
                }
            }
        }
        Ok::<(), String>(())
    })
    .unwrap_or_else(|e| panic!("RBAC for {name}: {e}"));
    ClusterOptions {
        kubeconfig: Some(plane.user_kubeconfig(name).expect("a kubeconfig")),
        ..ClusterOptions::default()
    }
}

#[test]
fn a_learner_refused_one_read_gets_could_not_check_naming_it_never_a_fail() {
    let plane = plane();
    // `done` holds the world's temp dir and the state lock for the whole test.
    let done = crate::step_4_done();
    let world = &done.world;
    let course = Arc::new(Course::embedded().expect("the course"));
    let module = course.module("module-10").expect("module-10");
    let step = module.step("step-4").expect("step-4");
    let run = |options: &ClusterOptions| {
        block_on(async {
            let cluster = Cluster::connect(options).await;
            run_on(&course, module, step, &world.work_dir(), cluster)
                .await
                .0
        })
    };

    // Everything labcheck reads, granted: the step passes as with the admin.
    let full = learner(plane, "learner-reads-all", read_rules(), None);
    let report = run(&full);
    assert_eq!(report.status, Status::Pass, "{report:#?}");

    // labcheck reads each Application by name: a learner who may get but not list them is
    // refused nothing.
    let no_list = learner(
        plane,
        "learner-no-app-list",
        without(read_rules(), "applications", "list"),
        None,
    );
    let report = run(&no_list);
    assert_eq!(report.status, Status::Pass, "{report:#?}");

    // (user, rules, namespaces bound, the refusal every could-not-check must name)
    type Case<'a> = (&'a str, Vec<Value>, Option<&'a [&'a str]>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (
            "learner-no-app-get",
            without(read_rules(), "applications", "get"),
            None,
            "get applications.argoproj.io in argocd",
        ),
        (
            "learner-no-pod-logs",
            without(read_rules(), "pods/log", "get"),
            None,
            "get pods/log in checkout-dev",
        ),
        (
            "learner-not-in-checkout-dev",
            read_rules(),
            Some(&["argocd"]),
            "in checkout-dev",
        ),
    ];
    for (user, rules, namespaces, refused) in cases {
        let options = learner(plane, user, rules, namespaces);
        let report = run(&options);
        let failed: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.outcome.status == Status::Fail)
            .map(|c| format!("{}: {}", c.id, c.outcome.summary))
            .collect();
        assert!(
            failed.is_empty(),
            "{user}: refused reads reported as failures: {failed:#?}"
        );
        let unchecked: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.outcome.status == Status::Error)
            .collect();
        assert!(
            !unchecked.is_empty(),
            "{user}: nothing was refused? {report:#?}"
        );
        let mut named = 0;
        for check in &unchecked {
            let o = &check.outcome;
            let words = format!(
                "{} {} {}",
                o.summary,
                labcheck::report::hint::text(&o.hints).unwrap_or_default(),
                o.diagnosis.clone().unwrap_or_default()
            );
            // A check that counts only after one that could not be checked says so instead.
            if words.contains("which could not be checked") {
                continue;
            }
            assert!(
                words.contains(refused),
                "{user}: `{}` does not name the refused `{refused}`: {words}",
                check.id
            );
            assert!(
                words.contains("role"),
                "{user}: `{}` does not name a role that would allow it: {words}",
                check.id
            );
            named += 1;
        }
        assert!(named > 0, "{user}: no check names the refusal: {report:#?}");
        assert_eq!(labcheck::cli::exit_code(report.status), 3, "{user}");

        // The instructor runs what the hints say (with the admin's kubeconfig): the learner may
        // then read it, and the step passes.
        let mut commands: Vec<String> = Vec::new();
        for check in &unchecked {
            let hint = labcheck::report::hint::text(&check.outcome.hints).unwrap_or_default();
            for command in hint.split('`').skip(1).step_by(2) {
                if command.starts_with("kubectl create ")
                    && !commands.contains(&command.to_string())
                {
                    commands.push(command.to_string());
                }
            }
        }
        assert!(!commands.is_empty(), "{user}: no command grants it");
        for command in &commands {
            kubectl(plane, command);
        }
        let granted = run(&options);
        assert_eq!(
            granted.status,
            Status::Pass,
            "{user} after {commands:?}: {granted:#?}"
        );
        for command in &commands {
            // `kubectl create KIND NAME … [-n NS]` → `kubectl delete KIND NAME [-n NS]`.
            let words: Vec<&str> = command.split_whitespace().collect();
            let mut delete = format!("kubectl delete {} {}", words[2], words[3]);
            if let Some(at) = words.iter().position(|w| *w == "-n") {
                delete.push_str(&format!(" -n {}", words[at + 1]));
            }
            kubectl(plane, &delete);
        }
    }
}

/// Run a `kubectl …` command line as the admin.
fn kubectl(plane: &Plane, command: &str) {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"kubectl"), "{command}");
    let output = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&plane.admin_kubeconfig)
        .args(&words[1..])
        .output()
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "{command}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
