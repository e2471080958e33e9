//! The edits on files shaped as learners shape them: other comments, another key order, flow
//! style, CRLF line ends, the value already set, the block already there.

use super::*;

fn path(p: &str) -> YamlPath {
    YamlPath::parse(p).expect("a valid path")
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).expect("valid YAML")
}

/// (what the learner's file looks like, file, path, value as YAML, the file after the edit;
/// `None`: the edit changes nothing).
type SetCase = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

const SET_CASES: &[SetCase] = &[
    (
        "a scalar changes in place; the comment after it and every other line stay",
        "# dev\nimage:\n  repository: x # the repo\n  tag: \"6.7.1\"   # pinned\nreplicaCount: 1\n",
        "image.tag",
        "'6.7.0'",
        Some(
            "# dev\nimage:\n  repository: x # the repo\n  tag: \"6.7.0\"   # pinned\nreplicaCount: 1\n",
        ),
    ),
    (
        "the value already set: nothing changes",
        "image:\n  tag: \"6.7.0\"\n",
        "image.tag",
        "'6.7.0'",
        None,
    ),
    (
        "a plain scalar stays plain when it reads back as the same text",
        "image:\n  tag: 6.7.1-rc\n",
        "image.tag",
        "6.7.2-rc",
        Some("image:\n  tag: 6.7.2-rc\n"),
    ),
    (
        "a plain scalar is quoted when plain would read as a number",
        "image:\n  tag: latest\n",
        "image.tag",
        "'6.7'",
        Some("image:\n  tag: \"6.7\"\n"),
    ),
    (
        "single quotes stay single quotes",
        "image:\n  tag: '6.7.1'\n",
        "image.tag",
        "'6.7.0'",
        Some("image:\n  tag: '6.7.0'\n"),
    ),
    (
        "a missing map is added at the end of its parent, block style",
        "image:\n  tag: \"6.7.1\"\nreplicaCount: 1\n",
        "migration",
        "{enabled: true}",
        Some("image:\n  tag: \"6.7.1\"\nreplicaCount: 1\nmigration:\n  enabled: true\n"),
    ),
    (
        "the map already there with another value: only that value changes",
        "migration:\n  enabled: false # off for now\n  image: x\n",
        "migration",
        "{enabled: true}",
        Some("migration:\n  enabled: true # off for now\n  image: x\n"),
    ),
    (
        "the block already present (the step half done): nothing changes",
        "replicaCount: 1\nmigration:\n  enabled: true                # module 10\n",
        "migration",
        "{enabled: true}",
        None,
    ),
    (
        "YAML 1.1's `yes` already means true: nothing changes",
        "migration:\n  enabled: yes\n",
        "migration.enabled",
        "true",
        None,
    ),
    (
        "a key added to a map in another key order goes at its end",
        "migration:\n  image: x\n  enabled: true\n",
        "migration.fail",
        "true",
        Some("migration:\n  image: x\n  enabled: true\n  fail: true\n"),
    ),
    (
        "a key added to a flow map stays flow",
        "migration: {enabled: true}\nsmokeTest: {enabled: true}\n",
        "migration.fail",
        "true",
        Some("migration: {enabled: true, fail: true}\nsmokeTest: {enabled: true}\n"),
    ),
    (
        "a value inside a flow map changes in place",
        "image: {repository: x, tag: \"6.7.1\"}\n",
        "image.tag",
        "'6.7.0'",
        Some("image: {repository: x, tag: \"6.7.0\"}\n"),
    ),
    (
        "a whole document in flow style",
        "{image: {tag: \"6.7.1\"}, replicaCount: 1}\n",
        "migration",
        "{enabled: true}",
        Some("{image: {tag: \"6.7.1\"}, replicaCount: 1, migration: {enabled: true}}\n"),
    ),
    (
        "CRLF line ends: the added lines end with CRLF too",
        "image:\r\n  tag: \"6.7.1\"\r\nreplicaCount: 1\r\n",
        "migration",
        "{enabled: true}",
        Some("image:\r\n  tag: \"6.7.1\"\r\nreplicaCount: 1\r\nmigration:\r\n  enabled: true\r\n"),
    ),
    (
        "CRLF line ends: a value changed in place",
        "image:\r\n  tag: \"6.7.1\"\r\n",
        "image.tag",
        "'6.7.0'",
        Some("image:\r\n  tag: \"6.7.0\"\r\n"),
    ),
    (
        "no line break at the end of the file",
        "image:\n  tag: \"6.7.1\"",
        "migration.enabled",
        "true",
        Some("image:\n  tag: \"6.7.1\"\nmigration:\n  enabled: true\n"),
    ),
    (
        "four-space indentation is kept for the added key",
        "migration:\n    enabled: true\n",
        "migration.fail",
        "true",
        Some("migration:\n    enabled: true\n    fail: true\n"),
    ),
    (
        "a key given with nothing (null) becomes the map",
        "migration:\nreplicaCount: 1\n",
        "migration.enabled",
        "true",
        Some("migration:\n  enabled: true\nreplicaCount: 1\n"),
    ),
    (
        "an empty file becomes the map",
        "",
        "migration.enabled",
        "true",
        Some("migration:\n  enabled: true\n"),
    ),
    (
        "a comment-only file keeps its comment",
        "# values for dev\n",
        "migration.enabled",
        "true",
        Some("# values for dev\nmigration:\n  enabled: true\n"),
    ),
    (
        "a key with dots, in brackets, added under annotations",
        "metadata:\n  name: shop-web\nspec:\n  replicas: 2\n",
        "metadata.annotations[\"argocd.argoproj.io/sync-wave\"]",
        "'0'",
        Some(
            "metadata:\n  name: shop-web\n  annotations:\n    argocd.argoproj.io/sync-wave: \"0\"\nspec:\n  replicas: 2\n",
        ),
    ),
    (
        "a list item picked by name, its flow list replaced in flow style with the same quotes",
        "spec:\n  containers:\n    - name: migrate\n      command: [\"php\", \"artisan\", \"migrate\"] # run once\n",
        "spec.containers[name=migrate].command",
        "[php, artisan, migrate, --force]",
        Some(
            "spec:\n  containers:\n    - name: migrate\n      command: [\"php\", \"artisan\", \"migrate\", \"--force\"] # run once\n",
        ),
    ),
    (
        "a block list replaced as a block list at the learner's indentation",
        "spec:\n  command:\n  - php\n  - artisan   # the CLI\nother: 1\n",
        "spec.command",
        "[php, artisan, migrate]",
        Some("spec:\n  command:\n  - php\n  - artisan\n  - migrate   # the CLI\nother: 1\n"),
    ),
    (
        "a multi-line text is written as a literal block",
        "cm:\n  a: \"1\"\n",
        "cm.script",
        "\"x = 1\\nreturn x\\n\"",
        Some("cm:\n  a: \"1\"\n  script: |\n    x = 1\n    return x\n"),
    ),
    (
        "the literal block already there, in the learner's own indentation: nothing changes",
        "cm:\n      script: |\n          x = 1\n          return x\n",
        "cm.script",
        "\"x = 1\\nreturn x\\n\"",
        None,
    ),
    (
        "a block scalar replaced by another keeps the lines after it",
        "cm:\n  script: |\n    x = 2\n  other: y\n",
        "cm.script",
        "\"x = 1\\n\"",
        Some("cm:\n  script: |\n    x = 1\n  other: y\n"),
    ),
    (
        "a block scalar followed by blank lines, replaced: the blank lines and what follows stay",
        "cm:\n  script: |\n    x = 2\n\n  other: y\n",
        "cm.script",
        "\"x = 1\\n\"",
        Some("cm:\n  script: |\n    x = 1\n\n  other: y\n"),
    ),
    (
        "a number stays a number",
        "spec:\n  syncPolicy:\n    retry:\n      limit: 5 # tries\n      backoff: {duration: 5s}\n",
        "spec.syncPolicy.retry.limit",
        "0",
        Some(
            "spec:\n  syncPolicy:\n    retry:\n      limit: 0 # tries\n      backoff: {duration: 5s}\n",
        ),
    ),
];

#[test]
fn set_edits_only_the_lines_the_path_resolves_to() {
    for (what, before, p, value, after) in SET_CASES {
        let got = set(before, None, &path(p), &yaml(value), &Placement::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got.as_deref(), *after, "{what}");
        if let Some(after) = after {
            let read = helm::parse_documents(after).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                holds(
                    path(p).lookup(&read[0]).unwrap_or(&Value::Null),
                    &yaml(value)
                ),
                "{what}: the file now says it"
            );
            let again = set(after, None, &path(p), &yaml(value), &Placement::default())
                .unwrap_or_else(|e| panic!("{what}, again: {e}"));
            assert_eq!(again, None, "{what}: a second run changes nothing");
        }
    }
}

#[test]
fn a_new_key_goes_after_or_before_the_sibling_named_with_its_comment() {
    let values = "configs:\n  cm:\n    # Banner lines\n    ui.bannercontent: \"x\"\n    ui.bannerpermanent: \"true\"\n    timeout.reconciliation: 60s\n  params: {}\n";
    let named = |key: &str| Some(key.to_string());
    // (what the course asks, where the key goes, the path, the value, the file after the edit)
    let cases = [
        (
            "after a sibling, with its comment",
            Placement {
                after: named("ui.bannerpermanent"),
                before: None,
                comment: named("Module 10: a health status."),
            },
            "configs.cm[\"resource.customizations.health.argoproj.io_Application\"]",
            Value::String("hs = {}\nreturn hs\n".to_string()),
            "configs:\n  cm:\n    # Banner lines\n    ui.bannercontent: \"x\"\n    ui.bannerpermanent: \"true\"\n    # Module 10: a health status.\n    resource.customizations.health.argoproj.io_Application: |\n      hs = {}\n      return hs\n    timeout.reconciliation: 60s\n  params: {}\n",
        ),
        (
            "before a sibling: above the comment lines that belong to it",
            Placement {
                before: named("ui.bannercontent"),
                ..Placement::default()
            },
            "configs.cm.first",
            yaml("1"),
            "configs:\n  cm:\n    first: 1\n    # Banner lines\n    ui.bannercontent: \"x\"\n    ui.bannerpermanent: \"true\"\n    timeout.reconciliation: 60s\n  params: {}\n",
        ),
        (
            "the sibling is not in the learner's file: the key goes at the end of its map",
            Placement {
                after: named("not.there"),
                ..Placement::default()
            },
            "configs.cm.last",
            yaml("1"),
            "configs:\n  cm:\n    # Banner lines\n    ui.bannercontent: \"x\"\n    ui.bannerpermanent: \"true\"\n    timeout.reconciliation: 60s\n    last: 1\n  params: {}\n",
        ),
    ];
    for (what, place, at, value, want) in cases {
        let got =
            set(values, None, &path(at), &value, &place).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got.as_deref(), Some(want), "{what}");
    }
}

#[test]
fn a_document_of_a_multi_document_file_is_named_by_its_position() {
    let text = "kind: ConfigMap\nmetadata:\n  name: a\n---\nkind: Secret\nmetadata:\n  name: b\n";
    let got = set(
        text,
        Some(1),
        &path("metadata.annotations.x"),
        &yaml("y"),
        &Placement::default(),
    )
    .expect("edits");
    assert_eq!(
        got.as_deref(),
        Some(
            "kind: ConfigMap\nmetadata:\n  name: a\n---\nkind: Secret\nmetadata:\n  name: b\n  annotations:\n    x: \"y\"\n"
        )
    );
    for (document, want) in [
        (None, "name one with `document:`"),
        (Some(2), "no document 2"),
    ] {
        let err = set(
            text,
            document,
            &path("a"),
            &yaml("1"),
            &Placement::default(),
        )
        .expect_err("refused");
        assert!(err.to_string().contains(want), "{err}");
    }
}

#[test]
fn what_cannot_be_made_is_an_error_that_names_the_path() {
    let cases = [
        ("image: x\n", "image.tag", "is not a map"),
        (
            "spec:\n  containers: []\n",
            "spec.containers[name=x].image",
            "names no item",
        ),
        ("a: [1\n", "a", "line 2"),
    ];
    for (text, p, want) in cases {
        let err = set(text, None, &path(p), &yaml("1"), &Placement::default()).expect_err(p);
        assert!(err.to_string().contains(want), "{p}: {err}");
    }
}

/// (what, before, path, after; `None`: nothing to remove).
const REMOVE_CASES: &[(&str, &str, &str, Option<&str>)] = &[
    (
        "a key and its block value go; the comments around stay",
        "# dev\nsmokeTest:\n  enabled: true   # on\n  path: /status/503\n# end\n",
        "smokeTest.path",
        Some("# dev\nsmokeTest:\n  enabled: true   # on\n# end\n"),
    ),
    (
        "the comment lines right above the key go with it",
        "migration:\n  enabled: true\n  # module 10: the migration fails on purpose\n  # (step 5 reverts it)\n  fail: true\nsmokeTest: {}\n",
        "migration.fail",
        Some("migration:\n  enabled: true\nsmokeTest: {}\n"),
    ),
    (
        "a comment set off by a blank line stays",
        "a: 1\n# about b and c\n\n# b\nb: 2\nc: 3\n",
        "b",
        Some("a: 1\n# about b and c\n\nc: 3\n"),
    ),
    (
        "a comment at the parent's indent is the parent's, not the key's",
        "m:\n  a: 1\n# top\n  b: 2\n",
        "m.b",
        Some("m:\n  a: 1\n# top\n"),
    ),
    (
        "a top-level key with its comments, CRLF",
        "# a\r\na: 1\r\n# b\r\nb: 2\r\n",
        "b",
        Some("# a\r\na: 1\r\n"),
    ),
    (
        "a trailing comment on the line before is that line's, and stays",
        "a: 1   # one\nb: 2\n",
        "b",
        Some("a: 1   # one\n"),
    ),
    (
        "a key with a block under it goes whole",
        "a: 1\nmigration:\n  enabled: true\n  fail: true\nb: 2\n",
        "migration",
        Some("a: 1\nb: 2\n"),
    ),
    (
        "not there: nothing changes",
        "smokeTest:\n  enabled: true\n",
        "smokeTest.path",
        None,
    ),
    (
        "from a flow map",
        "smokeTest: {enabled: true, path: /x}\n",
        "smokeTest.path",
        Some("smokeTest: {enabled: true}\n"),
    ),
    (
        "the only key of a map: the map stays, empty",
        "smokeTest:\n  path: /x\nz: 1\n",
        "smokeTest.path",
        Some("smokeTest: {}\nz: 1\n"),
    ),
    (
        "the first key of a list item",
        "items:\n  - name: a\n    x: 1\n",
        "items[0].name",
        Some("items:\n  - x: 1\n"),
    ),
    ("CRLF", "a: 1\r\nb: 2\r\n", "a", Some("b: 2\r\n")),
];

#[test]
fn remove_takes_out_the_key_and_only_its_lines() {
    for (what, before, p, after) in REMOVE_CASES {
        let got = remove(before, None, &path(p)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got.as_deref(), *after, "{what}");
        if let Some(after) = after {
            assert_eq!(
                remove(after, None, &path(p)).expect("again"),
                None,
                "{what}: twice"
            );
        }
    }
}

/// (what, the file there, whether it is YAML, the file after or a word of the error).
type CreateCase<'a> = (
    &'a str,
    Option<&'a str>,
    bool,
    Result<Option<&'a str>, &'a str>,
);

#[test]
fn create_writes_a_new_file_and_merges_into_a_yaml_file_that_is_there() {
    let text = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke\n";
    let cases: &[CreateCase] = &[
        ("not there: the text", None, true, Ok(Some(text))),
        (
            "there with the text: nothing changes",
            Some(text),
            true,
            Ok(None),
        ),
        (
            "a YAML file with more: the learner's keys and comments stay",
            Some(
                "# mine\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke\n  labels: {a: b}\n",
            ),
            true,
            Ok(None),
        ),
        (
            "a YAML file that differs: the text's keys are set in it",
            Some("# mine\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: old   # was\n"),
            true,
            Ok(Some(
                "# mine\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: smoke   # was\n",
            )),
        ),
        (
            "another file that differs: never overwritten",
            Some("notes\n"),
            false,
            Err("is there already and differs"),
        ),
    ];
    for (what, existing, yaml, want) in cases {
        let got = create(*existing, text, *yaml);
        match (got, want) {
            (Ok(got), Ok(want)) => assert_eq!(got.as_deref(), *want, "{what}"),
            (Err(e), Err(want)) => assert!(e.to_string().contains(want), "{what}: {e}"),
            (got, want) => panic!("{what}: got {got:?}, want {want:?}"),
        }
    }
    assert!(
        create(Some("a: 1\n"), "a: [1\n", true)
            .is_err_and(|e| e.to_string().contains("the text is not YAML")),
        "a text that is not YAML"
    );
}
