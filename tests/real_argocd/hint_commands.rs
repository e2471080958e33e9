//! What module 10's own words tell the learner to run to look (`argocd app get … --show-operation
//! | sed -n '/^GROUP/,$p'`, `kubectl -n checkout-dev logs job/checkout-migrate`, the tracking id's
//! jsonpath) prints something on the real Argo CD once the walk is done: a command that exits
//! with an error, or prints nothing where the hint sends the learner to read, is a wrong hint.
//! Only commands that look are run, as written, in the learner's shell; one that syncs,
//! terminates or changes anything is left to the walk and the failure tests.

use crate::named_commands::named_commands;
use crate::walk::walked;

/// Whether every command of `line` only looks: `argocd app get|list|wait`, `kubectl get|logs|
/// describe`, and the shell's own filters between them.
fn only_looks(line: &str) -> bool {
    line.split(['|', ';', '&'])
        .map(str::trim)
        .filter(|part| part.starts_with("argocd ") || part.starts_with("kubectl "))
        .all(|part| {
            // The verb: the first word that is neither a flag nor the namespace after `-n`.
            let mut words = part.split_whitespace();
            let program = words.next();
            let mut verbs = Vec::new();
            while let Some(word) = words.next() {
                match word {
                    "-n" | "--namespace" => {
                        words.next();
                    }
                    w if w.starts_with('-') => {}
                    w => verbs.push(w),
                }
            }
            match (program, verbs.as_slice()) {
                (Some("argocd"), ["app", verb, ..]) => matches!(*verb, "get" | "list" | "wait"),
                (Some("kubectl"), [verb, ..]) => matches!(*verb, "get" | "logs" | "describe"),
                _ => false,
            }
        })
}

#[test]
fn every_command_module_10_tells_the_learner_to_look_with_prints_something_on_the_real_argo_cd() {
    let (_, walked, _lab) = walked();
    let mut looked = std::collections::BTreeSet::new();
    let mut wrong = Vec::new();
    for named in named_commands(&["argocd", "kubectl"]) {
        if !named.at.starts_with("modules/module-10/") || named.at.contains("/fixtures/") {
            continue;
        }
        // The course writes the Application a check reads as `<it>` where the hint is shared.
        let line = named.command.replace("<it>", "checkout-dev");
        if line.contains('…') || !only_looks(&line) || !looked.insert(line.clone()) {
            continue;
        }
        let output = walked
            .lab
            .command("timeout")
            .args(["60", "bash", "-c", &line])
            .output()
            .expect("bash runs");
        let printed = String::from_utf8_lossy(&output.stdout);
        let quiet = line.contains(">/dev/null");
        if !output.status.success() || (!quiet && printed.trim().is_empty()) {
            wrong.push(format!(
                "{}: `{line}` exited {:?}, printing {printed:?}, {:?}",
                named.at,
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(
        looked.len() >= 10,
        "module 10 names commands to look with: {looked:#?}"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_command_that_syncs_or_changes_anything_is_not_one_that_looks() {
    for (line, looks) in [
        (
            "argocd app get checkout-dev --show-operation | sed -n '/^GROUP/,$p'",
            true,
        ),
        ("kubectl -n checkout-dev logs job/checkout-migrate", true),
        (
            "argocd app get checkout-dev --refresh >/dev/null && argocd app sync checkout-dev",
            false,
        ),
        ("argocd app terminate-op checkout-dev", false),
        (
            "kubectl -n checkout-dev scale deployment/checkout --replicas=1",
            false,
        ),
        ("kubectl -n checkout-dev delete job checkout-migrate", false),
    ] {
        assert_eq!(only_looks(line), looks, "{line}");
    }
}
