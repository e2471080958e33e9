//! Reading `git` checks from a check file: what is rejected at load, and where.

use super::*;

fn spec(yaml: &str) -> Result<GitSpec, String> {
    #[derive(Debug, Deserialize)]
    struct Check {
        #[expect(dead_code, reason = "only here so `git:` is not at line 1")]
        id: String,
        git: GitSpec,
    }
    let yaml = if yaml.starts_with("id:") {
        yaml.to_string()
    } else {
        let indented: String = yaml.lines().map(|l| format!("  {l}\n")).collect();
        format!("id: x\ngit:\n{indented}")
    };
    serde_yaml::from_str::<Check>(&yaml)
        .map(|c| c.git)
        .map_err(|e| e.to_string())
}

#[test]
fn a_git_check_without_a_condition_is_rejected_at_load() {
    let err = spec("id: x\ngit:\n  repo: checkout-config\n").unwrap_err();
    assert!(err.contains("has no condition"), "{err}");
    assert!(err.contains("line 3"), "{err}");
}

#[test]
fn clean_false_is_rejected_because_it_checks_nothing() {
    let err = spec("repo: x\nclean: false\n").unwrap_err();
    assert!(err.contains("`clean: false` checks nothing"), "{err}");
}

#[test]
fn an_invalid_regex_is_rejected_at_load_with_its_line() {
    let err = spec("repo: x\npushed: true\nhead_message: \"checkout: (6.7.0\"\n").unwrap_err();
    assert!(err.contains("is not a valid regex"), "{err}");
    assert!(err.contains("line 5 column 17"), "{err}");
}

#[test]
fn an_unknown_field_is_rejected() {
    let err = spec("repo: x\npushd: true\n").unwrap_err();
    assert!(err.contains("unknown field `pushd`"), "{err}");
}

#[test]
fn plain_patterns_become_the_commit_message_in_hints() {
    let p = |s: &str| Pattern(YamlPattern::new(s).unwrap());
    assert_eq!(
        p("^checkout: 6\\.7\\.0 with a broken migration$")
            .literal()
            .as_deref(),
        Some("checkout: 6.7.0 with a broken migration")
    );
    assert_eq!(p("^checkout: (a|b)").literal(), None);
    assert_eq!(p("6.7.0").literal(), None);
}
