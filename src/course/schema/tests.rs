//! Check files and module.yaml read as a course author writes them: errors at their line.

use super::*;

/// The error a course file's text gets when read as `T` (empty when it is read without one).
fn load_error<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> String {
    crate::course::parse_yaml::<T>(file, text)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

fn step_error(text: &str) -> String {
    load_error::<StepFile>("step.yaml", text)
}

fn module_error(text: &str) -> String {
    load_error::<ModuleManifest>("module.yaml", text)
}

#[test]
fn the_keys_named_in_errors_are_the_common_keys_and_every_kind() {
    let mut all = COMMON_KEYS.to_vec();
    all.extend_from_slice(CheckKind::NAMES);
    assert_eq!(CHECK_KEYS, all.as_slice());
}

/// The fuzzer's input that found the leak (a check file cut mid-key): an error at a position.
#[test]
fn a_check_file_cut_mid_key_is_an_error_with_a_position() {
    let text = "format: labcheck/v1\ntitle: t\nchecks:\n  - id: a\n    title: b\n    yamloks only run: x\n";
    let error = step_error(text);
    assert!(
        error.starts_with("step.yaml:4:5: checks[0]: unknown field `yamloks only run`"),
        "{error}"
    );
}

const MODULE_HEAD: &str = "format: labcheck/v1\nmodule: m\ntitle: t\ntracks: {default: kind, available: [kind]}\nrepos:\n  - name: r\n    get: git clone r\n";

#[test]
fn a_steps_entry_that_leaves_the_folder_or_is_reserved_is_named_at_its_line() {
    let cases = [
        (
            "steps:\n  - step-1\n  - ../../etc/passwd\n",
            "module.yaml:10:5:",
            "leaves the folder",
        ),
        (
            "steps: [step-1, /etc/x]\n",
            "module.yaml:8:",
            "it is absolute",
        ),
        ("steps: [sub/step]\n", "module.yaml:8:", "not a file name"),
        (
            "steps:\n  - quiz\n",
            "module.yaml:9:5:",
            "`labcheck MODULE quiz` runs the module's quiz",
        ),
        ("steps: [module]\n", "module.yaml:8:", "module's own file"),
        (
            "steps: [step-1, Quiz]\n",
            "module.yaml:8:17:",
            "a step may not be called `Quiz`: `quiz` is a name the course format reserves",
        ),
        (
            "steps: [step-1, QUIZ.yaml]\n",
            "module.yaml:8:17:",
            "a step may not be called `QUIZ.yaml`: `quiz` is a name the course format reserves",
        ),
        (
            "steps: [module.yml]\n",
            "module.yaml:8:",
            "`module` is a name the course format reserves",
        ),
        (
            "steps: [step-1, step-2.yaml]\n",
            "module.yaml:8:17:",
            "step `step-2.yaml` is written with its file's extension: `steps:` lists names, and labcheck reads `NAME.yaml`; write `step-2`",
        ),
        ("steps: [a, b, a]\n", "module.yaml:8:", "listed twice"),
        ("steps: []\n", "module.yaml:8:", "`steps:` is empty"),
    ];
    for (steps, at, words) in cases {
        let error = module_error(&format!("{MODULE_HEAD}{steps}"));
        assert!(error.starts_with(at), "{steps}: {error}");
        assert!(error.contains(words), "{steps}: {error}");
    }
}

#[test]
fn a_repo_path_that_leaves_the_work_dir_is_refused_at_its_line() {
    let text = "format: labcheck/v1\nmodule: m\ntitle: t\ntracks: {default: kind, available: [kind]}\nrepos:\n  - name: r\n    path: ../../etc\n    get: x\nsteps: [s]\n";
    let error = module_error(text);
    assert!(error.starts_with("module.yaml:7:11:"), "{error}");
    assert!(
        error.contains("`path: ../../etc` leaves the folder"),
        "{error}"
    );
}

#[test]
fn a_duplicate_check_id_is_refused_at_the_second_one() {
    let text = "format: labcheck/v1\ntitle: t\nchecks:\n  - id: a\n    title: x\n    git: {repo: r, branch: main}\n  - id: a\n    title: y\n    git: {repo: r, branch: main}\n";
    let error = step_error(text);
    assert!(error.starts_with("step.yaml:7:"), "{error}");
    assert!(error.contains("two checks have the id `a`"), "{error}");
}
