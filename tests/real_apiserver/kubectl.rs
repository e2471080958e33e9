//! kubectl against the real API server and against `labcheck serve` holding the same state: the
//! same output, line for line (the real server's uids read as the snapshot's). `kubectl logs`
//! goes through kube-apiserver's real log proxy to the plane's kubelet.

use std::path::Path;
use std::process::Command;

use labcheck::serve::ServeOptions;
use labcheck::snapshot::Snapshot;

use crate::plane::plane;

pub(crate) fn kubectl(kubeconfig: &Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output()
        .expect("kubectl runs");
    let (out, err) = crate::texts(&output);
    (output.status.success(), out, err)
}

#[test]
fn kubectl_reads_the_real_server_as_it_reads_serve_logs_through_the_kubelet_proxy_included() {
    let plane = plane();
    let done = crate::step_4_done();
    let real_to_fixture = done.real_to_fixture();
    // What the migration's container wrote, as the plane's kubelet serves it.
    let (migrate_pod, migrate_log) = done.migrate_pod();
    let differences = ask_both(
        &done.snapshot,
        &real_to_fixture,
        done.dir.path(),
        "fixture",
        (&migrate_pod, &migrate_log),
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    // `labcheck serve` of a `labcheck snapshot` of the real server answers kubectl as the real
    // server did (its uids are the real ones).
    let captured = crate::captures::snapshot_of_real(
        plane,
        "module-10",
        &done.world.work_dir(),
        &done.dir.path().join("captured.yaml"),
    );
    let differences = ask_both(
        &captured,
        &[],
        done.dir.path(),
        "captured",
        (&migrate_pod, &migrate_log),
    );
    assert!(
        differences.is_empty(),
        "serving a snapshot of the real server:\n{}",
        differences.join("\n")
    );
}

/// Run the table's kubectl commands against the plane and against `labcheck serve` of
/// `snapshot`; each difference in output, one entry each (`real_to_fixture` maps the real
/// server's uids to the snapshot's); `kubectl logs` of the migration pod (`migrate`: its name and
/// the log it must print).
fn ask_both(
    snapshot: &Snapshot,
    real_to_fixture: &[(String, String)],
    dir: &Path,
    name: &str,
    (migrate_pod, migrate_log): (&str, &str),
) -> Vec<String> {
    let plane = plane();
    let served = crate::serve_on_loopback(snapshot.clone(), ServeOptions::default());
    let serve_config =
        crate::kubeconfig_without_a_user(&served, dir.join(format!("serve-{name}.kubeconfig")));

    let commands: &[&[&str]] = &[
        &["-n", "checkout-dev", "get", "jobs"],
        &["-n", "checkout-dev", "get", "jobs", "-o", "wide"],
        &["-n", "checkout-dev", "get", "pods"],
        &["-n", "checkout-dev", "get", "pods", "-o", "wide"],
        &[
            "-n",
            "checkout-dev",
            "get",
            "pods",
            "-l",
            "job-name=checkout-migrate",
        ],
        &["-n", "argocd", "get", "applications"],
        &["-n", "argocd", "get", "app", "checkout-dev", "-o", "wide"],
        &["-n", "checkout-dev", "get", "job", "nope"],
        &["-n", "checkout-dev", "logs", migrate_pod],
        &["-n", "checkout-dev", "logs", migrate_pod, "--tail=1"],
        &[
            "-n",
            "checkout-dev",
            "logs",
            migrate_pod,
            "--limit-bytes=12",
        ],
        &["-n", "checkout-dev", "logs", "-f", migrate_pod],
        &["-n", "checkout-dev", "logs", "job/checkout-migrate"],
        &["-n", "checkout-dev", "logs", migrate_pod, "--previous"],
    ];
    let mut differences = Vec::new();
    for args in commands {
        let (s_ok, s_out, s_err) = kubectl(&serve_config, args);
        let (r_ok, mut r_out, r_err) = kubectl(&plane.admin_kubeconfig, args);
        for (real, fixture) in real_to_fixture {
            r_out = r_out.replace(real.as_str(), fixture);
        }
        let same = |(ok, out, err): &(bool, String, String)| {
            (*ok, out) == (r_ok, &r_out) && (*ok || *err == r_err)
        };
        // kubectl's AGE column is of the moment it asks (`4h44m`): a minute that turns between
        // the two asks changes it. Asked once more, serve answers at a moment on the other side.
        let first = (s_ok, s_out, s_err);
        if !same(&first) && !same(&kubectl(&serve_config, args)) {
            let (s_ok, s_out, s_err) = first;
            differences.push(format!(
                "kubectl {}:\n  serve ({s_ok}): {s_out}{s_err}\n  real  ({r_ok}): {r_out}{r_err}",
                args.join(" ")
            ));
        }
        if args.contains(&"logs")
            && !args.contains(&"--previous")
            && !args.iter().any(|a| a.starts_with("--"))
        {
            assert_eq!(&r_out, migrate_log, "kubectl {}: {r_err}", args.join(" "));
        }
    }
    differences
}
