use super::*;
use crate::outcome::Status;

fn files<'a>(reference: &'a str, learner: &'a str) -> Files<'a> {
    Files {
        reference_shown: "~/work/argocd-gitops/platform/argocd/values.yaml",
        reference,
        shown: "~/work/argocd-platform/argocd/values.yaml",
        learner,
    }
}

fn yaml_outcome(reference: &str, learner: &str, mode: DiffMode, subtree: Option<&str>) -> Outcome {
    let path = subtree.and_then(|s| YamlPath::parse(s).ok());
    match files(reference, learner).compare_yaml(mode, path.as_ref()) {
        Ok(outcome) | Err(outcome) => *outcome,
    }
}

const REFERENCE: &str = "configs:\n  cm:\n    # banner\n    ui.bannerpermanent: \"true\"\n    timeout.reconciliation: 60s\nserver:\n  replicas: 1\n";

#[test]
fn same_text_passes_and_a_changed_value_fails_with_the_diff() {
    assert_eq!(
        files(REFERENCE, REFERENCE).compare_text(false).status,
        Status::Pass
    );
    let changed = REFERENCE.replace("replicas: 1", "replicas: 2");
    let outcome = files(REFERENCE, &changed).compare_text(false);
    assert_eq!(outcome.status, Status::Fail);
    assert!(
        outcome.summary.ends_with(": line 7 differs"),
        "{}",
        outcome.summary
    );
    let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
    assert!(diff.contains("--- ~/work/argocd-gitops/platform/argocd/values.yaml"));
    assert!(diff.contains("+++ ~/work/argocd-platform/argocd/values.yaml"));
    assert!(diff.contains("-  replicas: 1\n+  replicas: 2\n"), "{diff}");
}

#[test]
fn whitespace_mode_ignores_trailing_spaces_blank_lines_and_crlf() {
    let noisy = REFERENCE
        .replace('\n', "  \r\n")
        .replace("server:", "\nserver:");
    assert_eq!(
        files(REFERENCE, &noisy).compare_text(true).status,
        Status::Pass
    );
    assert_eq!(
        files(REFERENCE, &noisy).compare_text(false).status,
        Status::Fail
    );
    let indented = REFERENCE.replace("  replicas", "    replicas");
    assert_eq!(
        files(REFERENCE, &indented).compare_text(true).status,
        Status::Fail
    );
}

#[test]
fn a_missing_block_is_named_as_lines_missing() {
    let without = REFERENCE.replace("    timeout.reconciliation: 60s\n", "");
    let outcome = files(REFERENCE, &without).compare_text(false);
    outcome.assert_says("lines are missing after line 4");
}

#[test]
fn yaml_mode_ignores_key_order_comments_and_quoting_style() {
    let reordered = "server: {replicas: 1}\nconfigs:\n  cm:\n    timeout.reconciliation: '60s'\n    ui.bannerpermanent: 'true'\n";
    assert_eq!(
        yaml_outcome(REFERENCE, reordered, DiffMode::Yaml, None).status,
        Status::Pass
    );
}

#[test]
fn yaml_mode_names_the_keys_that_differ() {
    let changed =
        "configs:\n  cm:\n    ui.bannerpermanent: true\n    extra: x\nserver:\n  replicas: 1\n";
    let outcome = yaml_outcome(REFERENCE, changed, DiffMode::Yaml, None);
    assert_eq!(outcome.status, Status::Fail);
    assert!(
        outcome.summary.contains(
            r#"`configs.cm["ui.bannerpermanent"]` is true in yours, "true" in the reference"#
        ),
        "{}",
        outcome.summary
    );
    assert!(
        outcome
            .summary
            .contains(r#"`configs.cm["timeout.reconciliation"]` is missing"#)
    );
    assert!(
        outcome
            .summary
            .contains("`configs.cm.extra` is not in the reference")
    );
}

#[test]
fn contains_mode_allows_extra_keys_and_names_missing_ones() {
    let fragment = "configs:\n  cm:\n    timeout.reconciliation: 60s\n";
    assert_eq!(
        yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None).status,
        Status::Pass
    );
    let fragment = "configs:\n  cm:\n    resource.customizations.health.argoproj.io_Application: |\n      hs = {}\n";
    let outcome = yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None);
    assert_eq!(outcome.status, Status::Fail);
    assert!(outcome.summary.contains(
        r#"`configs.cm["resource.customizations.health.argoproj.io_Application"]` is missing"#
    ));
    let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
    // The learner's side shows only the reference's keys, not the whole file.
    assert!(!diff.contains("replicas"), "{diff}");
}

/// The learner's `cm:` has other keys but not the health check: the diff must not show an
/// empty `cm: {}` they never wrote, only the reference's missing block.
#[test]
fn contains_mode_shows_only_lines_the_learner_has() {
    let fragment = "configs:\n  cm:\n    resource.customizations.health.argoproj.io_Application: |\n      hs = {}\n";
    let outcome = yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None);
    let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
    assert!(!diff.contains("cm: {}"), "{diff}");
    assert!(
        diff.lines().filter(|l| l.starts_with('+')).count() == 0,
        "nothing of the learner's is missing-and-shown: {diff}"
    );
    assert!(
        diff.contains("-resource.customizations.health.argoproj.io_Application: |"),
        "{diff}"
    );
}

#[test]
fn each_mistake_gets_its_own_diff() {
    let fragment = "configs:\n  cm:\n    timeout.reconciliation: 90s\n    ui.bannerpermanent: \"true\"\nserver:\n  replicas: 2\n";
    let outcome = yaml_outcome(fragment, REFERENCE, DiffMode::Contains, None);
    let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
    assert_eq!(diff.matches("@@ ").count(), 2, "{diff}");
    assert!(
        diff.contains("-timeout.reconciliation: 90s\n+timeout.reconciliation: 60s"),
        "{diff}"
    );
    assert!(diff.contains("-replicas: 2\n+replicas: 1"), "{diff}");
}

#[test]
fn yaml_equal_but_text_different_passes_with_a_note_about_diff() {
    let reordered = "server: {replicas: 1}\nconfigs:\n  cm:\n    timeout.reconciliation: '60s'\n    ui.bannerpermanent: 'true'\n";
    let outcome = yaml_outcome(REFERENCE, reordered, DiffMode::Yaml, None);
    assert_eq!(outcome.status, Status::Pass);
    outcome.assert_says("`diff` still prints lines");
    let same = yaml_outcome(REFERENCE, REFERENCE, DiffMode::Yaml, None);
    assert!(!same.summary.contains("`diff`"), "{}", same.summary);
}

#[test]
fn subtree_compares_only_that_part() {
    let changed = REFERENCE.replace("replicas: 1", "replicas: 3");
    assert_eq!(
        yaml_outcome(REFERENCE, &changed, DiffMode::Yaml, Some("configs.cm")).status,
        Status::Pass
    );
    let outcome = yaml_outcome(REFERENCE, &changed, DiffMode::Yaml, Some("server"));
    assert!(
        outcome
            .summary
            .contains("`server.replicas` is 3 in yours, 1 in the reference")
    );
    let missing = yaml_outcome(
        REFERENCE,
        "server: {}\n",
        DiffMode::Yaml,
        Some("configs.cm"),
    );
    assert_eq!(missing.status, Status::Fail);
    assert!(missing.summary.contains("has no `configs.cm`"));
}

#[test]
fn broken_learner_yaml_fails_with_its_position() {
    let outcome = yaml_outcome(REFERENCE, "configs:\n  cm: [\n", DiffMode::Yaml, None);
    assert_eq!(outcome.status, Status::Fail);
    assert!(
        outcome
            .summary
            .starts_with("~/work/argocd-platform/argocd/values.yaml:")
    );
}

#[test]
fn subtree_with_a_text_mode_is_refused_at_load() {
    let text = "repo: a\nfile: b\nreference: {expected: c}\nmode: text\nsubtree: x\n";
    let error = serde_yaml::from_str::<DiffSpec>(text)
        .err()
        .map(|e| e.to_string());
    assert!(error.unwrap_or_default().contains("`subtree` needs"));
    let mixed = "repo: a\nfile: b\nreference: {expected: c, repo: d}\n";
    let error = serde_yaml::from_str::<DiffSpec>(mixed)
        .err()
        .map(|e| e.to_string());
    assert!(error.unwrap_or_default().contains("not a mix"));
}

#[test]
fn a_one_character_slip_in_a_script_shows_that_line_with_a_little_context_once() {
    // Step 1's Lua health check, with `~=` typed as `=` on one line.
    let script = |op: &str| {
        format!(
            "configs:\n  cm:\n    resource.customizations.health.argoproj.io_Application: |\n      hs = {{}}\n      hs.status = \"Progressing\"\n      hs.message = \"\"\n      if obj.status ~= nil and obj.status.health {op} nil then\n        hs.status = obj.status.health.status\n        if obj.status.health.message ~= nil then\n          hs.message = obj.status.health.message\n        end\n      end\n      return hs\n"
        )
    };
    let outcome = yaml_outcome(&script("~="), &script("="), DiffMode::Contains, None);
    assert_eq!(outcome.status, Status::Fail);
    let diff = outcome.detail.map(|d| d.text).unwrap_or_default();
    let minus: Vec<&str> = diff.lines().filter(|l| l.starts_with('-')).collect();
    let plus: Vec<&str> = diff.lines().filter(|l| l.starts_with('+')).collect();
    assert_eq!(
        minus,
        ["-  if obj.status ~= nil and obj.status.health ~= nil then"],
        "{diff}"
    );
    assert_eq!(
        plus,
        ["+  if obj.status ~= nil and obj.status.health = nil then"],
        "{diff}"
    );
    assert!(
        diff.contains(" resource.customizations.health.argoproj.io_Application: |"),
        "{diff}"
    );
    // Two lines of context each side, not the 10-line script.
    assert!(diff.lines().count() <= 8, "{diff}");
    assert!(!diff.contains("return hs"), "{diff}");
}

/// Which cause a difference gets decides which of the course's hints the learner reads: "add the
/// block" to a learner whose block is there with a slip would have them write the key twice.
#[test]
fn a_difference_says_whether_the_learner_lacks_has_otherwise_or_has_too_much() {
    use crate::outcome::CauseId::{DiffersInFile, ExtraInFile, MissingInFile};
    let without_timeout = REFERENCE.replace("    timeout.reconciliation: 60s\n", "");
    let slip = REFERENCE.replace("60s", "60");
    let extra = REFERENCE.replace("server:\n", "server:\n  extra: 1\n");
    let both = without_timeout.replace("server:\n", "server:\n  extra: 1\n");
    let cases: &[(&str, &str, DiffMode, crate::outcome::CauseId)] = &[
        (
            "block not added yet",
            &without_timeout,
            DiffMode::Contains,
            MissingInFile,
        ),
        (
            "a slip in a value",
            &slip,
            DiffMode::Contains,
            DiffersInFile,
        ),
        ("a slip, whole file", &slip, DiffMode::Yaml, DiffersInFile),
        ("a key too many", &extra, DiffMode::Yaml, ExtraInFile),
        (
            "one missing, one too many",
            &both,
            DiffMode::Yaml,
            DiffersInFile,
        ),
        (
            "lines missing, text",
            &without_timeout,
            DiffMode::Text,
            MissingInFile,
        ),
        ("a slip, text", &slip, DiffMode::Text, DiffersInFile),
        (
            "a line too many, text",
            &extra,
            DiffMode::Whitespace,
            ExtraInFile,
        ),
    ];
    for (what, learner, mode, cause) in cases {
        let outcome = match mode {
            DiffMode::Text => files(REFERENCE, learner).compare_text(false),
            DiffMode::Whitespace => files(REFERENCE, learner).compare_text(true),
            _ => yaml_outcome(REFERENCE, learner, *mode, None),
        };
        assert_eq!(outcome.status, Status::Fail, "{what}");
        assert!(
            outcome.cause.as_ref().is_some_and(|c| c.is(*cause)),
            "{what}: {:?}",
            outcome.cause
        );
    }
    let no_subtree = yaml_outcome(
        REFERENCE,
        "other: 1\n",
        DiffMode::Contains,
        Some("configs.cm"),
    );
    assert!(no_subtree.cause.is_some_and(|c| c.is(MissingInFile)));
}
