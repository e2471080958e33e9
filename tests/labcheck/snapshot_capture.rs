//! `labcheck snapshot` captures what the checks read, whatever it is: a course whose step reads a
//! custom resource (cert-manager's Certificate, not Argo CD's Application) gets that object and
//! its type in the file, so the snapshot serves it and the step's verdict from the file is the
//! live one — also when the learner may not read CustomResourceDefinitions.

use std::path::Path;

use crate::harness::MODULE;
use labcheck::lab::cluster::{self as lab_cluster, Revisions};
use labcheck::lab::fixtures;
use labcheck::serve::ServeOptions;
use labcheck::snapshot::Snapshot;
use serde_json::{Value, json};

use crate::harness::{Labcheck, kubeconfig_at, runtime, serve_on};

/// The check the course copy adds to step 4.
const CERTIFICATE_CHECK: &str = r#"
  - id: certificate-ready
    title: "Certificate checkout-tls is ready"
    object:
      api: cert-manager.io/v1
      kind: Certificate
      namespace: checkout-dev
      name: checkout-tls
      field: { path: "status.conditions[type=Ready].status", equals: "True" }
"#;

/// cert-manager's CRD for Certificates, as `cert-manager.crds.yaml` (v1.15) declares it: group
/// cert-manager.io, plural certificates, Namespaced, v1 served and stored, a Ready column.
fn certificate_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "certificates.cert-manager.io"},
        "spec": {
            "group": "cert-manager.io",
            "names": {"kind": "Certificate", "listKind": "CertificateList", "plural": "certificates",
                      "shortNames": ["cert", "certs"], "singular": "certificate",
                      "categories": ["cert-manager"]},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "additionalPrinterColumns": [
                    {"jsonPath": ".status.conditions[?(@.type==\"Ready\")].status", "name": "Ready", "type": "string"},
                    {"jsonPath": ".spec.secretName", "name": "Secret", "type": "string"}]}]
        }
    })
}

/// A Certificate as cert-manager's controller leaves it once issued (`Ready` `True`).
fn certificate() -> Value {
    json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "checkout-tls", "namespace": "checkout-dev"},
        "spec": {"secretName": "checkout-tls", "dnsNames": ["checkout.example.test"],
                 "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer"}},
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                                   "message": "Certificate is up to date and has not expired"}]}
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a course folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copied");
        }
    }
}

/// Statuses of step 4's checks by id.
fn statuses(report: &Value) -> Vec<(String, String)> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or_default().to_string(),
                c["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_snapshot_holds_the_custom_resources_a_step_reads_and_serves_them_again() {
    let rt = runtime();
    let root = tempfile::tempdir().expect("a temp dir");
    let course = root.path().join("course");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for part in ["modules", "expected"] {
        copy_dir(&manifest.join(part), &course.join(part));
    }
    let step = course.join("modules/module-10/step-4.yaml");
    let text = std::fs::read_to_string(&step).expect("step 4");
    // The new check goes last in `checks:`, before the step's `solution:`.
    let (checks, solution) = text
        .split_once("\nsolution:")
        .expect("step 4 has a solution");
    std::fs::write(
        &step,
        format!(
            "{}{CERTIFICATE_CHECK}\nsolution:{solution}",
            checks.trim_end()
        ),
    )
    .expect("written");

    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let world =
        labcheck::lab::cache::in_state(&home, "module-10", "step-4", "solved").expect("a world");
    let revs = Revisions::of_world(&world).expect("revisions");
    let state = fixtures::state(MODULE, "step-4", "solved").expect("the state");
    let cluster = lab_cluster::of_state(state, &revs)
        .expect("the cluster")
        .with_object(certificate_crd())
        .with_object(certificate());
    let course = course.display().to_string();
    let wd = world.work_dir().display().to_string();
    for (who, options) in [
        ("a learner who may read CRDs", ServeOptions::default()),
        (
            "a learner who may not read CRDs",
            ServeOptions {
                fail_with: Some(403),
                fail_resources: vec!["customresourcedefinitions".to_string()],
                ..ServeOptions::default()
            },
        ),
    ] {
        let server = serve_on(&rt, cluster.clone(), options);
        let kc = kubeconfig_at(&home.join("kc.yaml"), &server.url(), "lab");
        let kc = kc.display().to_string();
        // The same cluster, work repos and course for the learner's run and the capture.
        let on = [
            "--kubeconfig",
            &kc,
            "--work-dir",
            &wd,
            "--course-dir",
            &course,
        ];
        let live = Labcheck::new(&home)
            .args([MODULE, "step-4", "--no-wait", "-o", "json"])
            .args(on)
            .run()
            .json();
        assert!(
            statuses(&live).contains(&("certificate-ready".to_string(), "pass".to_string())),
            "{who}: {live:#}"
        );
        let out = home.join("captured.yaml");
        let captured = Labcheck::new(&home)
            .args(["snapshot", MODULE, "--out"])
            .arg(&out)
            .args(on)
            .run();
        assert_eq!(captured.code, 0, "{who}: {}", captured.stderr);
        assert!(server.requests.writes().is_empty(), "capturing only reads");
        drop(server);
        let snapshot = Snapshot::load(&out).unwrap_or_else(|e| panic!("{who}: {e}"));
        let kinds: Vec<(&str, &str)> = snapshot
            .objects
            .iter()
            .map(|o| {
                (
                    o["kind"].as_str().unwrap_or_default(),
                    o["metadata"]["name"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        assert!(
            kinds.contains(&("Certificate", "checkout-tls")),
            "{who}: {kinds:?}"
        );
        assert!(
            kinds.contains(&("CustomResourceDefinition", "certificates.cert-manager.io")),
            "{who}: {kinds:?}"
        );
        // The logs the step's checks read are in it too.
        assert!(
            snapshot.logs.values().any(|log| log.contains("migration")),
            "{who}: {:?}",
            snapshot.logs.keys()
        );
        let from_file = Labcheck::new(&home)
            .args([MODULE, "step-4", "--no-wait", "-o", "json", "--snapshot"])
            .arg(&out)
            .args(["--work-dir", &wd, "--course-dir", &course])
            .run()
            .json();
        assert_eq!(statuses(&from_file), statuses(&live), "{who}");
    }
}
