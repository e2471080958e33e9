//! The file check kinds (`yaml_value`, `files`, `diff`) through the real binary: a tiny course and a
//! work dir of plain files in a temp dir, `--format json`, and the exit code.

use std::path::{Path, PathBuf};

use crate::harness::lab_file;

use crate::harness::Labcheck;

/// A temp dir holding `home/work/<repo>/…` (the learner's files) and `course/` (a one-module course).
struct World {
    root: tempfile::TempDir,
}

/// What one run of labcheck gave.
struct Run {
    code: i32,
    json: serde_json::Value,
    stderr: String,
}

impl Run {
    /// The first check's field, as text ("" when absent).
    fn check(&self, field: &str) -> String {
        match &self.json["checks"][0][field] {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        }
    }
}

const MODULE: &str = r#"format: labcheck/v1
module: module-t
title: "File checks under test"
tracks:
  default: kind
  available: [kind]
repos:
  - name: argocd-platform
    get: "the platform repo: git clone <your Git server>/platform/argocd-platform.git ${work}/argocd-platform"
  - name: checkout-config
    get: "the config repo: git clone <your Git server>/team-checkout/checkout-config.git ${work}/checkout-config"
  - name: argocd-gitops
    get: "the course's reference repo: git clone <your Git server>/course/argocd-gitops.git ${work}/argocd-gitops"
steps: [step-1]
"#;

impl World {
    fn new() -> World {
        let root = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("cannot make a temp dir: {e}"),
        };
        let world = World { root };
        world.course_file("modules/module-t/module.yaml", MODULE);
        std::fs::create_dir_all(world.work()).ok();
        world
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    fn work(&self) -> PathBuf {
        self.home().join("work")
    }

    fn course(&self) -> PathBuf {
        self.root.path().join("course")
    }

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).ok();
        }
        if let Err(e) = std::fs::write(path, text) {
            panic!("cannot write {}: {e}", path.display());
        }
    }

    fn course_file(&self, relative: &str, text: &str) {
        Self::write(&self.course().join(relative), text);
    }

    /// The learner's file `~/work/<relative>`.
    fn work_file(&self, relative: &str, text: &str) -> &World {
        Self::write(&self.work().join(relative), text);
        self
    }

    /// Step 1 of the test course holds these checks (YAML list items, indented by two).
    fn step(&self, checks: &str) -> &World {
        self.course_file(
            "modules/module-t/step-1.yaml",
            &format!("format: labcheck/v1\ntitle: \"Step under test\"\nchecks:\n{checks}"),
        );
        self
    }

    fn run(&self) -> Run {
        let run = Labcheck::new(&self.home())
            .args(["module-t", "step-1", "--format", "json", "--no-wait"])
            .arg("--course-dir")
            .arg(self.course())
            .arg("--work-dir")
            .arg(self.work())
            .run();
        Run {
            code: run.code,
            json: serde_json::from_str(&run.stdout).unwrap_or(serde_json::Value::Null),
            stderr: run.stderr,
        }
    }
}

const DIFF_AGAINST_REFERENCE_REPO: &str = r#"  - id: values-match-reference
    title: "argocd/values.yaml is the same as the reference"
    hint: "add the health check under cm:, after the banner lines"
    diff:
      repo: argocd-platform
      file: argocd/values.yaml
      reference: { repo: argocd-gitops, file: platform/argocd/values.yaml }
      mode: MODE
"#;

fn diff_step(world: &World, mode: &str) {
    world.step(&DIFF_AGAINST_REFERENCE_REPO.replace("MODE", mode));
}

fn solved_world() -> World {
    let world = World::new();
    world
        .work_file(
            "argocd-gitops/platform/argocd/values.yaml",
            &lab_file("step-1", "argocd-platform", "argocd/values.yaml"),
        )
        .work_file(
            "argocd-platform/argocd/values.yaml",
            &lab_file("step-1", "argocd-platform", "argocd/values.yaml"),
        );
    world
}

#[test]
fn values_file_equal_to_the_reference_passes() {
    for mode in ["text", "whitespace", "yaml"] {
        let world = solved_world();
        diff_step(&world, mode);
        let run = world.run();
        assert_eq!(run.code, 0, "{mode}: {} {}", run.json, run.stderr);
        assert_eq!(run.json["status"], "pass");
        assert_eq!(run.check("kind"), "diff");
    }
}

#[test]
fn changed_value_fails_with_the_diff() {
    let world = solved_world();
    world.work_file(
        "argocd-platform/argocd/values.yaml",
        &lab_file("step-1", "argocd-platform", "argocd/values.yaml")
            .replace("hs.status = \"Progressing\"", "hs.status = \"Healthy\""),
    );
    diff_step(&world, "text");
    let run = world.run();
    assert_eq!(run.code, 1, "{}", run.json);
    assert_eq!(run.check("status"), "fail");
    assert!(
        run.check("summary").ends_with(": line 12 differs"),
        "{}",
        run.check("summary")
    );
    let diff = run.check("detail");
    assert!(
        diff.contains("--- ~/work/argocd-gitops/platform/argocd/values.yaml"),
        "{diff}"
    );
    assert!(
        diff.contains("+++ ~/work/argocd-platform/argocd/values.yaml"),
        "{diff}"
    );
    assert!(
        diff.contains("-      hs.status = \"Progressing\"\n+      hs.status = \"Healthy\""),
        "{diff}"
    );
    // No cause-specific hint for a content difference: the course's own words are shown.
    assert_eq!(
        run.check("hint"),
        "add the health check under cm:, after the banner lines"
    );
}

#[test]
fn forgotten_health_block_fails_naming_the_missing_lines() {
    let world = solved_world();
    world.work_file(
        "argocd-platform/argocd/values.yaml",
        &lab_file("fresh", "argocd-platform", "argocd/values.yaml"),
    );
    diff_step(&world, "text");
    let run = world.run();
    assert_eq!(run.check("status"), "fail");
    assert!(
        run.check("summary")
            .ends_with(": lines are missing after line 7"),
        "{}",
        run.check("summary")
    );
}

#[test]
fn reordered_keys_and_comments_pass_in_yaml_mode_but_fail_in_text_mode() {
    let world = solved_world();
    let reordered = lab_file("step-1", "argocd-platform", "argocd/values.yaml")
        .replace("# Argo CD, installed", "# My notes. Argo CD, installed")
        .replace("server:\n  replicas: 1\n", "")
        .replacen("configs:\n", "server:\n  replicas: 1\nconfigs:\n", 1);
    world.work_file("argocd-platform/argocd/values.yaml", &reordered);
    diff_step(&world, "yaml");
    let run = world.run();
    assert_eq!(run.check("status"), "pass", "{}", run.json);
    diff_step(&world, "text");
    let run = world.run();
    assert_eq!(run.check("status"), "fail", "{}", run.json);
    assert_eq!(run.code, 1);
}

#[test]
fn missing_values_file_fails_with_a_hint_naming_the_full_path() {
    let world = World::new();
    world
        .work_file(
            "argocd-gitops/platform/argocd/values.yaml",
            &lab_file("step-1", "argocd-platform", "argocd/values.yaml"),
        )
        .work_file("argocd-platform/README.md", "platform repo\n");
    diff_step(&world, "yaml");
    let run = world.run();
    assert_eq!(run.code, 1, "{}", run.json);
    assert_eq!(run.check("status"), "fail");
    assert!(
        run.check("hint")
            .contains("~/work/argocd-platform/argocd/values.yaml"),
        "{}",
        run.check("hint")
    );
}

#[test]
fn reference_repo_not_cloned_is_could_not_check_with_how_to_get_it() {
    let world = World::new();
    world.work_file(
        "argocd-platform/argocd/values.yaml",
        &lab_file("step-1", "argocd-platform", "argocd/values.yaml"),
    );
    diff_step(&world, "yaml");
    let run = world.run();
    assert_eq!(run.code, 3, "{}", run.json);
    assert_eq!(run.json["status"], "error");
    assert_eq!(run.check("status"), "error");
    assert!(
        run.check("hint")
            .contains("git clone <your Git server>/course/argocd-gitops.git"),
        "{}",
        run.check("hint")
    );
}

/// The lines step 1's solution adds to argocd/values.yaml, in one block.
fn step_1_block() -> String {
    let before = lab_file("fresh", "argocd-platform", "argocd/values.yaml");
    let after = lab_file("step-1", "argocd-platform", "argocd/values.yaml");
    let (old, new): (Vec<&str>, Vec<&str>) = (
        before.split_inclusive('\n').collect(),
        after.split_inclusive('\n').collect(),
    );
    let same_start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let same_end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    assert_eq!(same_start + same_end, old.len(), "step 1 only adds lines");
    new[same_start..new.len() - same_end].concat()
}

#[test]
fn values_matching_the_course_reference_file_pass_and_a_missing_key_is_named() {
    let world = World::new();
    world.course_file(
        "expected/kind/module-t/argocd-values.yaml",
        &format!("configs:\n  cm:\n{}", step_1_block()),
    );
    world.step(
        r#"  - id: health-check-present
    title: "the health check is in argocd/values.yaml"
    diff:
      repo: argocd-platform
      file: argocd/values.yaml
      reference: { expected: argocd-values.yaml }
      mode: contains
"#,
    );
    world.work_file(
        "argocd-platform/argocd/values.yaml",
        &lab_file("step-1", "argocd-platform", "argocd/values.yaml"),
    );
    let run = world.run();
    assert_eq!(run.check("status"), "pass", "{}", run.json);

    world.work_file(
        "argocd-platform/argocd/values.yaml",
        &lab_file("fresh", "argocd-platform", "argocd/values.yaml"),
    );
    let run = world.run();
    assert_eq!(run.check("status"), "fail");
    assert!(
        run.check("summary").contains(
            r#"`configs.cm["resource.customizations.health.argoproj.io_Application"]` is missing"#
        ),
        "{}",
        run.check("summary")
    );
}

const MIGRATION_ENABLED: &str = r#"  - id: migration-enabled
    title: "migration is on in dev"
    yaml_value:
      repo: checkout-config
      file: helm/dev.yaml
      path: migration.enabled
      equals: true
"#;

#[test]
fn migration_switched_on_passes() {
    let world = World::new();
    world.step(MIGRATION_ENABLED).work_file(
        "checkout-config/helm/dev.yaml",
        &lab_file("step-2", "checkout-config", "helm/dev.yaml"),
    );
    let run = world.run();
    assert_eq!(run.code, 0, "{}", run.json);
    assert_eq!(run.check("status"), "pass");
}

#[test]
fn migration_not_added_fails_with_a_hint_to_set_it() {
    let world = World::new();
    world.step(MIGRATION_ENABLED).work_file(
        "checkout-config/helm/dev.yaml",
        &lab_file("fresh", "checkout-config", "helm/dev.yaml"),
    );
    let run = world.run();
    assert_eq!(run.code, 1);
    assert_eq!(run.check("status"), "fail");
    assert_eq!(
        run.check("hint"),
        "set `migration.enabled: true` in ~/work/checkout-config/helm/dev.yaml"
    );
}

#[test]
fn quoted_true_fails_with_a_hint_to_remove_the_quotes() {
    let world = World::new();
    world.step(MIGRATION_ENABLED).work_file(
        "checkout-config/helm/dev.yaml",
        "migration:\n  enabled: \"true\"\n",
    );
    let run = world.run();
    assert_eq!(run.check("status"), "fail");
    assert!(
        run.check("hint").contains("remove the quotes"),
        "{}",
        run.check("hint")
    );
}

#[test]
fn broken_values_yaml_fails_naming_line_and_column() {
    let world = World::new();
    world.step(MIGRATION_ENABLED).work_file(
        "checkout-config/helm/dev.yaml",
        "migration:\n  enabled: true\n smokeTest:\n  enabled: true\n",
    );
    let run = world.run();
    assert_eq!(run.check("status"), "fail", "{}", run.json);
    assert!(
        run.check("summary")
            .starts_with("~/work/checkout-config/helm/dev.yaml:3:"),
        "{}",
        run.check("summary")
    );
}

const SYNC_WAVES: &str = r#"  - id: waves-first
    title: "projects and namespaces carry a negative wave"
    files:
      repo: argocd-platform
      glob: "apps/{projects,namespaces}.yaml"
      min_count: 2
      yaml: { path: 'metadata.annotations["argocd.argoproj.io/sync-wave"]', matches: '^-[0-9]+$' }
"#;

/// The sync-waves step on the fresh `apps/projects.yaml` and the given `apps/namespaces.yaml`.
fn sync_waves_with(namespaces: &str) -> World {
    let world = World::new();
    world
        .step(SYNC_WAVES)
        .work_file(
            "argocd-platform/apps/projects.yaml",
            &lab_file("fresh", "argocd-platform", "apps/projects.yaml"),
        )
        .work_file("argocd-platform/apps/namespaces.yaml", namespaces);
    world
}

#[test]
fn projects_and_namespaces_with_negative_waves_pass() {
    let world = sync_waves_with(&lab_file(
        "fresh",
        "argocd-platform",
        "apps/namespaces.yaml",
    ));
    let run = world.run();
    assert_eq!(run.code, 0, "{}", run.json);
    assert_eq!(run.check("kind"), "files");
}

#[test]
fn a_wave_removed_from_namespaces_fails_naming_that_file() {
    let world = sync_waves_with(
        &lab_file("fresh", "argocd-platform", "apps/namespaces.yaml")
            .replace("    argocd.argoproj.io/sync-wave: \"-1\"\n", ""),
    );
    let run = world.run();
    assert_eq!(run.check("status"), "fail", "{}", run.json);
    let summary = run.check("summary");
    assert!(summary.contains("1 of 2"), "{summary}");
    assert!(summary.contains("apps/namespaces.yaml"), "{summary}");
    assert!(!summary.contains("apps/projects.yaml"), "{summary}");
}

#[test]
fn no_matching_file_is_a_failure_not_a_vacuous_pass() {
    let world = World::new();
    world.step(SYNC_WAVES).work_file(
        "argocd-platform/apps/checkout.yaml",
        &lab_file("fresh", "argocd-platform", "apps/checkout-dev.yaml"),
    );
    let run = world.run();
    assert_eq!(run.check("status"), "fail");
    assert!(
        run.check("summary").contains("no file"),
        "{}",
        run.check("summary")
    );
}

/// A step file `step` is refused before anything runs (exit 2), naming `step-1.yaml:LINE_COL`
/// and `words`.
fn assert_refused_at(step: &str, line_col: &str, words: &str) {
    let world = World::new();
    world.step(step);
    let run = world.run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    let stderr = &run.stderr;
    assert!(
        stderr.contains(&format!("step-1.yaml:{line_col}")),
        "expected step-1.yaml:{line_col} in: {stderr}"
    );
    assert!(stderr.contains(words), "expected `{words}` in: {stderr}");
}

#[test]
fn a_bad_regex_in_a_check_file_is_a_usage_error_at_its_line() {
    assert_refused_at(
        &SYNC_WAVES.replace("'^-[0-9]+$'", "'^-[0-9+$'"),
        "10:86",
        "not a valid regular expression",
    );
}

#[test]
fn an_unknown_key_in_a_check_is_a_usage_error_at_its_line() {
    assert_refused_at(
        &MIGRATION_ENABLED.replace("equals: true", "equals: true\n      equal: true"),
        "",
        "unknown field `equal`",
    );
}

#[test]
fn a_bad_path_in_a_check_file_is_a_usage_error_at_its_line() {
    assert_refused_at(
        &MIGRATION_ENABLED.replace("migration.enabled", "migration..enabled"),
        "9:13",
        "expected a key after `.`",
    );
}
