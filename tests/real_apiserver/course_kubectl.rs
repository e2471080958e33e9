//! The course's solutions' `kubectl` lines, run for real: each step's solution (`labcheck
//! solution`) ends with looks (`kubectl -n checkout-dev logs job/checkout-migrate`); on the
//! step's solved cluster loaded into the real API server each must succeed, print something, and
//! print what it prints against `labcheck serve` of the same state (the real uids read as the
//! fixture's). The course walk runs the same lines with a stand-in that only records them.

use std::collections::HashMap;
use std::path::Path;

use labcheck::course::Step;
use labcheck::course::solution::{ClusterTool, SolutionAction};
use labcheck::serve::{self, ServeOptions};
use labcheck::snapshot::Snapshot;

use crate::plane::plane;

/// The `kubectl` lines of `step`'s solution, as argv after `kubectl`.
pub fn kubectl_lines(step: &Step) -> Vec<&[String]> {
    step.solution
        .iter()
        .filter_map(|action| match action {
            SolutionAction::Cluster {
                tool: ClusterTool::Kubectl,
                args,
                ..
            } => Some(args.as_slice()),
            _ => None,
        })
        .collect()
}

/// Run `step`'s solution's kubectl lines against the plane (holding `snapshot`, its uids
/// `uids`: fixture → real) and `labcheck serve` of `snapshot`: how many ran, and each problem.
pub fn run_solution_kubectl(
    step: &Step,
    snapshot: &Snapshot,
    uids: &HashMap<String, String>,
    dir: &Path,
) -> (usize, Vec<String>) {
    let lines = kubectl_lines(step);
    if lines.is_empty() {
        return (0, Vec::new());
    }
    let plane = plane();
    let served = crate::serve_on_loopback(snapshot.clone(), ServeOptions::default());
    let serve_config = dir.join(format!("{}.kubeconfig", step.name.replace('/', "-")));
    std::fs::write(&serve_config, serve::kubeconfig(&served.url(), "serve")).expect("a kubeconfig");
    let mut problems = Vec::new();
    for args in &lines {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (r_ok, mut r_out, r_err) = crate::kubectl::kubectl(&plane.admin_kubeconfig, &args);
        let (s_ok, s_out, s_err) = crate::kubectl::kubectl(&serve_config, &args);
        for (fixture, real) in uids {
            r_out = r_out.replace(real.as_str(), fixture);
        }
        let line = format!("{}: kubectl {}", step.name, args.join(" "));
        if !r_ok || r_out.trim().is_empty() {
            problems.push(format!("{line}: the real server: ({r_ok}) {r_out}{r_err}"));
        }
        if (r_ok, &r_out) != (s_ok, &s_out) {
            problems.push(format!(
                "{line}:\n  serve ({s_ok}): {s_out}{s_err}\n  real  ({r_ok}): {r_out}{r_err}"
            ));
        }
    }
    (lines.len(), problems)
}
