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
fn a_git_check_that_checks_nothing_or_cannot_be_read_is_rejected_at_load() {
    // (what is wrong, the check's text, what the error must say)
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "no condition, named at its line",
            "id: x\ngit:\n  repo: checkout-config\n",
            &["has no condition", "line 3"],
        ),
        (
            "clean: false checks nothing",
            "repo: x\nclean: false\n",
            &["`clean: false` checks nothing"],
        ),
        (
            "an invalid regex, with its line",
            "repo: x\npushed: true\nhead_message: \"checkout: (6.7.0\"\n",
            &["is not a valid regex", "line 5 column 17"],
        ),
        (
            "an unknown field",
            "repo: x\npushd: true\n",
            &["unknown field `pushd`"],
        ),
    ];
    for (case, yaml, says) in cases {
        let err = spec(yaml).unwrap_err();
        for words in says {
            assert!(err.contains(words), "{case}: {err}");
        }
    }
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
