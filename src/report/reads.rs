//! `-v`: what a run read and how long it took, and where each part of a hint came from, for stderr. Cluster requests are the ones sent (a
//! read shared by several checks is one request); repos are read by git, not timed one by one.

use std::fmt::Write;
use std::time::Duration;

use crate::run::StepReport;
use crate::run::session::WhatWasRead;

/// The lines `-v` prints after a run that took `total`.
pub fn render(read: &WhatWasRead, reports: &[StepReport], total: Duration) -> String {
    let ms = |d: Duration| format!("{} ms", d.as_millis());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "labcheck: read the course from {} in {}",
        read.course,
        ms(read.course_took)
    );
    for repo in &read.repos {
        let _ = writeln!(out, "labcheck: read the repo {}", repo.display());
    }
    for request in &read.requests {
        let retried = match request.retried.len() {
            0 => String::new(),
            n => format!(
                " (retried {n} time(s), as kubectl does: {})",
                request.retried.join("; ")
            ),
        };
        let _ = writeln!(
            out,
            "labcheck: read GET {} → {} in {}{retried}",
            request.url,
            request.answer,
            ms(request.took)
        );
    }
    // Where each part of a hint came from, so a wrong hint can be traced to the course file or
    // the check.
    for report in reports {
        for check in &report.checks {
            for part in &check.outcome.hints {
                let _ = writeln!(
                    out,
                    "labcheck: hint of {} · {} ({}): from {}",
                    report.step,
                    check.id,
                    super::hint::kind_in_words(part),
                    super::hint::from(part, check.kind)
                );
            }
        }
    }
    let checks: usize = reports.iter().map(|r| r.checks.len()).sum();
    let _ = writeln!(
        out,
        "labcheck: {} step(s), {checks} check(s), {} request(s) to the cluster, in {}",
        reports.len(),
        read.requests.len(),
        ms(total)
    );
    out
}
