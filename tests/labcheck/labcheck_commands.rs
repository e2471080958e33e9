//! Every `labcheck …` command the project names (in a hint, labcheck's own words, the README and
//! the docs) is one labcheck parses: its subcommands exist and it knows every flag and the
//! values it takes. `docs_run.rs` runs the README's commands; this holds every other mention to
//! the command line as it is. Each is parsed with `--help`, so nothing runs.

use std::process::Command;

use crate::named_commands::{help_args, named_commands, only_the_last_flags_value_missing, words};

/// The docs' synopsis words and the code's placeholders, as a command would have them.
const FILL: &[(&str, &str)] = &[
    // bundle/tape.rs: the module, then the step and a space when the bundle has one.
    ("{} {}--bundle {}", "module-10 step-4 --bundle x.tar.zst"),
    ("MODULE", "module-10"),
    ("STEP", "step-4"),
    ("SHELL", "bash"),
    ("--latency MS", "--latency 50"),
    ("${work}", "/tmp/work"),
];

/// What labcheck says to `WORDS --help`: `Ok` when it parses them.
fn parsed(words: &[String]) -> Result<(), String> {
    let home = tempfile::tempdir().expect("a HOME");
    let output = Command::new(env!("CARGO_BIN_EXE_labcheck"))
        .args(help_args(words))
        .env("HOME", home.path())
        .env("KUBECONFIG", home.path().join("no-kubeconfig"))
        .output()
        .expect("labcheck runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    if output.status.success() || only_the_last_flags_value_missing(&said, words) {
        Ok(())
    } else {
        Err(said.trim().to_string())
    }
}

#[test]
fn every_labcheck_command_the_course_the_code_and_the_docs_name_is_one_labcheck_parses() {
    let named = named_commands(&["labcheck"]);
    assert!(named.len() >= 50, "the project names labcheck's commands");
    let mut refused = Vec::new();
    let mut checked = std::collections::BTreeSet::new();
    for named in &named {
        let Some(words) = words(&named.command, FILL) else {
            continue;
        };
        // A message of labcheck's quoted in the docs, not a command.
        if words.iter().any(|w| w.ends_with(',') || w.contains('(')) {
            continue;
        }
        if !checked.insert(words.clone()) {
            continue;
        }
        if let Err(why) = parsed(&words) {
            refused.push(format!("{}: `{}`: {why}", named.at, named.command));
        }
    }
    assert!(
        checked.len() >= 50,
        "most mentions are whole commands: {checked:?}"
    );
    assert!(
        refused.is_empty(),
        "labcheck refuses:\n{}",
        refused.join("\n\n")
    );
}

/// The guard holds: a flag labcheck lacks, or `edit set` given its value without `--value`, is
/// refused; their sound neighbours parse.
#[test]
fn a_labcheck_command_with_a_flag_it_lacks_is_refused() {
    let cases = [
        ("labcheck module-10 step-4 --wiat 2m", false),
        ("labcheck module-10 step-4 --wait 2m", true),
        (
            "labcheck edit set values.yaml migration.enabled false",
            false,
        ),
        (
            "labcheck edit set values.yaml migration.enabled --value false",
            true,
        ),
        ("labcheck doctor --for", true),
        ("labcheck doctor --for nobody", false),
    ];
    for (command, sound) in cases {
        let words = words(command, FILL).expect("a command");
        let verdict = parsed(&words);
        assert_eq!(verdict.is_ok(), sound, "`{command}`: {verdict:?}");
    }
}
