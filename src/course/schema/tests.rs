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

/// What a YAML example in the docs is, by its first lines: a file of the course, or checks.
enum DocExample {
    Module,
    Step,
    Quiz,
    Checks,
    /// It leaves parts out (`[ … ]`): only its YAML is read.
    Sketch,
    /// One key written several ways, one per line (`hint:` as a text, as levels, keyed by
    /// cause): each is read on its own.
    Alternatives,
}

fn kind_of_example(text: &str) -> DocExample {
    let top_keys: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with([' ', '-', '#']) && !l.is_empty())
        .filter_map(|l| l.split_once(':').map(|(k, _)| k))
        .collect();
    if text.contains("[ … ]") {
        DocExample::Sketch
    } else if (1..top_keys.len()).any(|i| top_keys[..i].contains(&top_keys[i])) {
        DocExample::Alternatives
    } else if text.starts_with("format:") && text.contains("\nmodule:") {
        DocExample::Module
    } else if text.starts_with("format:") && text.contains("\nquestions:") {
        DocExample::Quiz
    } else if text.starts_with("format:") {
        DocExample::Step
    } else {
        DocExample::Checks
    }
}

/// Every ```yaml example in docs/check-files.md, with its first line, de-indented.
fn doc_examples() -> Vec<(usize, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/check-files.md");
    let text = std::fs::read_to_string(path).expect("docs/check-files.md");
    let mut examples = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut current, line.trim_start()) {
            (None, "```yaml") => current = Some((i + 2, Vec::new())),
            (Some(_), "```") => {
                let (at, lines) = current.take().expect("an open example");
                let indent = lines
                    .iter()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| l.len() - l.trim_start().len())
                    .min()
                    .unwrap_or(0);
                let body: Vec<&str> = lines
                    .iter()
                    .map(|l| l.get(indent..).unwrap_or(""))
                    .collect();
                examples.push((at, body.join("\n") + "\n"));
            }
            (Some((_, lines)), _) => lines.push(line),
            (None, _) => {}
        }
    }
    examples
}

/// The docs' examples are what a course author copies: each reads as the file it shows, so an
/// example can never teach a key the loader refuses.
#[test]
fn every_yaml_example_in_the_check_file_docs_reads_as_what_it_shows() {
    let examples = doc_examples();
    assert!(examples.len() >= 10, "{} examples found", examples.len());
    for (line, text) in examples {
        let file = format!("docs/check-files.md:{line}");
        let error = match kind_of_example(&text) {
            DocExample::Module => load_error::<ModuleManifest>(&file, &text),
            DocExample::Step => load_error::<StepFile>(&file, &text),
            DocExample::Quiz => crate::quiz::Quiz::parse(&file, &text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
            DocExample::Checks => load_error::<Vec<CheckSpec>>(&file, &text),
            DocExample::Sketch => load_error::<serde_yaml::Value>(&file, &text),
            DocExample::Alternatives => {
                let mut errors = String::new();
                let mut chunk = String::new();
                for line in text.lines().chain(["END:"]) {
                    if !line.starts_with([' ', '#']) && !chunk.is_empty() {
                        errors.push_str(&load_error::<serde_yaml::Value>(&file, &chunk));
                        chunk.clear();
                    }
                    chunk.push_str(line);
                    chunk.push('\n');
                }
                errors
            }
        };
        assert_eq!(error, "", "the example at {file} does not read:\n{text}");
    }
}
