//! Reports CI consumes and kubectl habits, on the real binary: TAP that `prove` reads, several
//! reports from one run, `-o`, refused combinations, `-q`, `-v`, `--request-timeout`, colour and
//! ASCII marks, "did you mean", the man page.

use std::time::Duration;

use crate::ci_output::cluster_file;
use crate::harness::{Labcheck, Run, World, files_with_bytes, labcheck, labcheck_with_env, prove};

fn run(world: &World, args: &[&str]) -> Run {
    labcheck(world.home(), args)
}

/// `Failed N/M subtests` from prove's summary, or `(0, M)` from `All tests successful` runs.
fn prove_counts(report: &str) -> Option<(usize, usize)> {
    let line = report.lines().find(|l| l.contains(" subtests"))?;
    let counts = line
        .trim()
        .trim_start_matches("Failed ")
        .split_whitespace()
        .next()?;
    let (failed, of) = counts.split_once('/')?;
    Some((failed.parse().ok()?, of.parse().ok()?))
}

#[test]
fn prove_reads_a_learners_tap_and_fails_exactly_the_steps_the_report_fails() {
    // Steps 1–2 done: a module run has steps that pass and steps that do not.
    let world = World::at("step-2");
    let snapshot = cluster_file(&world, "step-2");
    let base = ["module-10", "--no-wait", "--snapshot", &snapshot];
    let json = run(&world, &[&base[..], &["-o", "json"]].concat()).json();
    let statuses: Vec<String> = json["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["status"].as_str().unwrap_or_default().to_string())
        .collect();
    let not_passing = statuses
        .iter()
        .filter(|s| *s == "fail" || *s == "error")
        .count();
    assert!(
        not_passing > 0 && not_passing < statuses.len(),
        "{statuses:?}"
    );

    let tap = run(&world, &[&base[..], &["-o", "tap"]].concat());
    assert_eq!(tap.code, 1);
    assert!(tap.stdout.starts_with("TAP version 13\n"), "{}", tap.stdout);
    let (code, report) = prove(world.home(), &tap.stdout);
    assert_ne!(code, 0, "prove fails a failing run:\n{report}");
    assert!(!report.contains("Parse errors"), "{report}");
    assert!(report.contains("Result: FAIL"), "{report}");
    assert_eq!(
        prove_counts(&report),
        Some((not_passing, statuses.len())),
        "{report}"
    );

    // TAP 14 stays on request, for consumers that know its version line.
    let tap14 = run(&world, &[&base[..], &["-o", "tap14"]].concat());
    assert!(
        tap14.stdout.starts_with("TAP version 14\n"),
        "{}",
        tap14.stdout
    );
    assert_eq!(
        tap14.stdout.lines().skip(1).collect::<Vec<_>>(),
        tap.stdout.lines().skip(1).collect::<Vec<_>>(),
        "only the version line differs"
    );
}

#[test]
fn prove_passes_a_step_the_learner_did() {
    let world = World::at("step-4");
    let snapshot = cluster_file(&world, "step-4");
    let tap = run(
        &world,
        &[
            "module-10",
            "step-4",
            "--no-wait",
            "--snapshot",
            &snapshot,
            "-o",
            "tap",
        ],
    );
    assert_eq!(tap.code, 0, "{}{}", tap.stdout, tap.stderr);
    let (code, report) = prove(world.home(), &tap.stdout);
    assert_eq!(code, 0, "{report}");
    assert!(report.contains("Result: PASS"), "{report}");
    assert!(!report.contains("Parse errors"), "{report}");
}

#[test]
fn one_run_writes_every_report_asked_for_and_prints_the_human_report() {
    let world = World::at("step-3");
    let snapshot = cluster_file(&world, "step-3");
    let base = ["module-10", "step-4", "--no-wait", "--snapshot", &snapshot];
    let json = run(&world, &[&base[..], &["-o", "json"]].concat()).json();
    std::fs::create_dir_all(world.home().join("reports")).expect("reports folder");
    let file = |name: &str| world.home().join("reports").join(name);
    let arg = |format: &str, name: &str| format!("{format}={}", file(name).display());
    let reports = [
        arg("junit", "labcheck.xml"),
        arg("json", "labcheck.json"),
        arg("yaml", "labcheck.yaml"),
        arg("tap", "labcheck.tap"),
    ];
    let mut args: Vec<&str> = base.to_vec();
    for report in &reports {
        args.extend(["--report", report]);
    }
    let both = run(&world, &args);
    assert_eq!(both.code, 1, "{}", both.stderr);
    assert!(
        both.stdout.contains("step-4: not done yet"),
        "the terminal gets the human report: {}",
        both.stdout
    );
    let read = |name: &str| std::fs::read_to_string(file(name)).expect(name);
    let written: serde_json::Value =
        serde_json::from_str(&read("labcheck.json")).expect("JSON file");
    assert_eq!(written, json, "the file is the document -o json prints");
    let yaml: serde_json::Value = serde_yaml::from_str(&read("labcheck.yaml")).expect("YAML file");
    assert_eq!(yaml, json, "-o yaml is the JSON document as YAML");
    let xml = read("labcheck.xml");
    let failed = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == "fail")
        .count();
    assert_eq!(xml.matches("<failure ").count(), failed, "{xml}");
    let (code, report) = prove(world.home(), &read("labcheck.tap"));
    assert_ne!(code, 0, "{report}");
    assert_eq!(prove_counts(&report), Some((1, 1)), "{report}");

    // -o picks what is printed beside the files; --format is the same flag.
    let printed = run(
        &world,
        &[&base[..], &["-o", "tap", "--report", &reports[0]]].concat(),
    );
    assert!(
        printed.stdout.starts_with("TAP version 13\n"),
        "{}",
        printed.stdout
    );
    let long = run(&world, &[&base[..], &["--format", "yaml"]].concat());
    let short = run(&world, &[&base[..], &["-o", "yaml"]].concat());
    assert_eq!(long.stdout, short.stdout);
}

#[test]
fn output_still_writes_the_o_document_and_a_format_name_there_gets_did_you_mean() {
    let world = World::at("step-3");
    let snapshot = cluster_file(&world, "step-3");
    let base = ["module-10", "step-4", "--no-wait", "--snapshot", &snapshot];
    let kept = run(
        &world,
        &[&base[..], &["-o", "junit", "--output", "labcheck.xml"]].concat(),
    );
    assert_eq!(kept.code, 1, "{}", kept.stderr);
    kept.assert_stdout_has(&["step-4: not done yet"]);
    let xml = std::fs::read_to_string(world.home().join("labcheck.xml")).expect("the file");
    assert!(xml.starts_with("<?xml"), "{xml}");

    let cases: &[(&[&str], &str)] = &[
        (&["--output", "json"], "did you mean `-o json`"),
        (&["--output=yaml"], "did you mean `-o yaml`"),
        (&["-o", "junit", "--output", "tap"], "did you mean `-o tap`"),
        (&["--output", "labcheck.xml"], "needs a machine format"),
    ];
    for (flags, message) in cases {
        let before = files_with_bytes(world.home());
        let refused = run(&world, &[&base[..], flags].concat());
        assert_eq!(refused.code, 2, "{flags:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(message),
            "{flags:?}: {}",
            refused.stderr
        );
        assert!(refused.stdout.is_empty(), "{flags:?}: nothing runs");
        assert_eq!(
            files_with_bytes(world.home()),
            before,
            "{flags:?} wrote nothing"
        );
    }
}

#[test]
fn commands_that_cannot_give_a_format_refuse_it_before_anything_runs() {
    let world = World::at("step-3");
    let cases: &[(&[&str], &str)] = &[
        (
            &["module-10", "step-4", "--watch", "-o", "json"],
            "cannot be used with",
        ),
        (
            &["module-10", "step-4", "--watch", "--report", "junit=w.xml"],
            "cannot be used with",
        ),
        (
            &["module-10", "step-4", "--watch", "--output", "w.json"],
            "cannot be used with",
        ),
        (&["next", "--watch", "-o", "json"], "cannot be used with"),
        (
            &["module-10", "quiz", "-o", "json"],
            "the quiz is a conversation",
        ),
        (
            &["module-10", "quiz", "--report", "json=q.json"],
            "the quiz is a conversation",
        ),
        (
            &["module-10", "--report", "junit=r", "--report", "tap=r"],
            "named for two reports",
        ),
        (
            &[
                "module-10",
                "--report",
                "json=r.json",
                "--report",
                "junit=work/checkout-config/r.xml",
            ],
            "inside your work repo",
        ),
        (
            &["module-10", "--report", "xml=r.xml"],
            "`xml` is not a format",
        ),
        (
            &["module-10", "--report", "labcheck.xml"],
            "expected FORMAT=FILE",
        ),
        (&["module-10", "-q", "-v"], "cannot be used with"),
        (
            &["module-10", "--request-timeout", "0"],
            "would wait forever",
        ),
        (&["module-10", "--request-timeout", "soon"], "such as 2s"),
        (
            &[
                "module-10",
                "--snapshot",
                "s.yaml",
                "--request-timeout",
                "1s",
            ],
            "cannot be used with",
        ),
    ];
    for (args, message) in cases {
        let before = files_with_bytes(world.home());
        let refused = run(&world, args);
        assert_eq!(
            refused.code, 2,
            "{args:?}: {}{}",
            refused.stdout, refused.stderr
        );
        assert!(
            refused.stderr.contains(message),
            "{args:?}: {}",
            refused.stderr
        );
        assert!(refused.stdout.is_empty(), "{args:?}: {}", refused.stdout);
        assert_eq!(
            files_with_bytes(world.home()),
            before,
            "{args:?} wrote nothing"
        );
    }
}

#[test]
fn quiet_shows_only_what_did_not_pass() {
    // Step 4 committed and pushed, Argo CD not synced yet: its repo checks pass, its cluster
    // checks fail.
    let world = World::at("step-4");
    let snapshot = cluster_file(&world, "step-3");
    let base = ["module-10", "step-4", "--no-wait", "--snapshot", &snapshot];
    let full = run(&world, &base);
    let quiet = run(&world, &[&base[..], &["-q"]].concat());
    assert_eq!(quiet.code, full.code);
    assert!(
        full.stdout.contains("  ✓ "),
        "step 4 has passing checks: {}",
        full.stdout
    );
    assert!(!quiet.stdout.contains("✓"), "{}", quiet.stdout);
    for line in full.stdout.lines().filter(|l| l.starts_with("  ✗ ")) {
        assert!(
            quiet.stdout.contains(line),
            "{line} lost:\n{}",
            quiet.stdout
        );
    }
    insta::assert_snapshot!(
        "quiet_failing_step",
        crate::report_snapshots::without_pod_names(&quiet.stdout)
    );

    let done = World::at("step-4");
    let snapshot = cluster_file(&done, "step-4");
    let passed = run(
        &done,
        &[
            "module-10",
            "step-4",
            "--no-wait",
            "--snapshot",
            &snapshot,
            "--quiet",
        ],
    );
    assert_eq!(passed.code, 0, "{}", passed.stderr);
    insta::assert_snapshot!("quiet_passing_step", passed.stdout);
}

#[test]
fn verbose_says_what_was_read_with_timings_on_stderr() {
    let world = World::at("step-3");
    let snapshot = cluster_file(&world, "step-3");
    let base = ["module-10", "step-4", "--no-wait", "--snapshot", &snapshot];
    // JSON: a machine report leaves progress (and so hint levels) alone between the two runs.
    let plain = run(&world, &[&base[..], &["-o", "json"]].concat());
    let verbose = run(&world, &[&base[..], &["-o", "json", "-v"]].concat());
    assert_eq!(verbose.stdout, plain.stdout, "-v leaves the report alone");
    assert!(plain.stderr.is_empty(), "{}", plain.stderr);
    let err = &verbose.stderr;
    assert!(
        err.contains("read the course from the built-in course in "),
        "{err}"
    );
    let repo = world.home().join("work/checkout-config");
    assert!(
        err.contains(&format!("read the repo {}\n", repo.display())),
        "{err}"
    );
    let reads: Vec<&str> = err.lines().filter(|l| l.contains("read GET ")).collect();
    assert!(
        reads.iter().any(|l| l
            .contains("/apis/argoproj.io/v1alpha1/namespaces/argocd/applications")
            && l.contains(" → 200 in ")
            && l.ends_with(" ms")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{} request(s) to the cluster", reads.len())),
        "the count agrees with the lines: {err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_timeout_bounds_each_request_to_a_slow_cluster() {
    // Step 4 done: only the cluster's answers decide.
    let world = World::at("step-4");
    let snapshot = cluster_file(&world, "step-4");
    let kubeconfig = world.home().join("slow-kubeconfig");
    let mut server = Labcheck::new(world.home())
        .args([
            "serve",
            &snapshot,
            "--latency",
            "1500",
            "--write-kubeconfig",
        ])
        .arg(&kubeconfig)
        .spawn();
    server.read_until("Press Ctrl-C");
    let home = world.home().to_path_buf();
    let config = kubeconfig.display().to_string();
    let check = move |limit: &'static str| {
        let (home, config) = (home.clone(), config.clone());
        tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let run = labcheck(
                &home,
                &[
                    "module-10",
                    "step-4",
                    "--no-wait",
                    "--kubeconfig",
                    &config,
                    "--request-timeout",
                    limit,
                    "-o",
                    "json",
                ],
            );
            (run, started.elapsed())
        })
    };
    let (short, took) = check("200ms").await.expect("the run");
    assert_eq!(
        short.code, 3,
        "could not check: {}{}",
        short.stdout, short.stderr
    );
    assert!(
        took < Duration::from_millis(1500),
        "gave up before the answer: {took:?}"
    );
    // Every check that asks the slow cluster gave up (could not check); the repo checks,
    // which never wait for it, still pass.
    for check in short.json()["checks"].as_array().expect("checks") {
        let reads_repos_only =
            ["git", "yaml_value"].contains(&check["kind"].as_str().unwrap_or(""));
        let wanted = if reads_repos_only { "pass" } else { "error" };
        assert_eq!(check["status"], wanted, "{check:#}");
    }

    let (long, _) = check("10s").await.expect("the run");
    assert_eq!(
        long.code, 0,
        "the cluster answered: {}{}",
        long.stdout, long.stderr
    );
    drop(server);
}

/// Everything a run in a terminal printed (a pty, so the terminal rules apply).
fn in_terminal(world: &World, args: &[&str], env: &[(&str, &str)]) -> String {
    Labcheck::new(world.home())
        .env_remove("NO_COLOR")
        .args(args)
        .envs(env)
        .limit(Duration::from_secs(60))
        .terminal_output()
}

/// Environment variables of one run.
type Env<'a> = &'a [(&'a str, &'a str)];

/// Whether `text` holds an SGR colour or weight sequence (`ESC [ 31 m`), not just any escape.
fn has_colour(text: &str) -> bool {
    text.split("\x1b[").skip(1).any(|rest| {
        let digits: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ';')
            .collect();
        !digits.is_empty() && rest[digits.len()..].starts_with('m')
    })
}

#[test]
fn colour_and_marks_follow_the_environment_ci_logs_and_terminals_set() {
    // Step 4 committed and pushed, Argo CD not synced yet: its repo checks pass, its cluster
    // checks fail.
    let world = World::at("step-4");
    let snapshot = cluster_file(&world, "step-3");
    let base = ["module-10", "step-4", "--no-wait", "--snapshot", &snapshot];
    let with_never = [&base[..], &["--color", "never"]].concat();
    let piped: &[(&[&str], Env, bool)] = &[
        (&base, &[], false),
        (&base, &[("FORCE_COLOR", "1")], true),
        (&base, &[("CLICOLOR_FORCE", "1")], true),
        (&base, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], true),
        (&base, &[("FORCE_COLOR", "0")], false),
        (&with_never, &[("FORCE_COLOR", "1")], false),
    ];
    for (args, env, coloured) in piped {
        let out = labcheck_with_env(world.home(), args, env).stdout;
        assert_eq!(has_colour(&out), *coloured, "{env:?}:\n{out}");
        assert!(
            out.contains("✓") && out.contains("✗"),
            "a pipe gets UTF-8: {out}"
        );
    }

    let utf8 = in_terminal(&world, &base, &[("TERM", "xterm"), ("LANG", "C.UTF-8")]);
    assert!(utf8.contains("\x1b["), "a terminal is coloured: {utf8}");
    assert!(utf8.contains("✓") && utf8.contains("✗"), "{utf8}");
    assert!(has_colour(&utf8), "{utf8}");
    let dumb = in_terminal(&world, &base, &[("TERM", "dumb"), ("LANG", "C.UTF-8")]);
    assert!(!has_colour(&dumb), "TERM=dumb: {dumb}");
    for locale in [("LANG", "C"), ("LC_ALL", "en_US.ISO-8859-1")] {
        let ascii = in_terminal(
            &world,
            &base,
            &[("TERM", "xterm"), ("NO_COLOR", "1"), locale],
        );
        assert!(
            ascii.contains("  [ok] ") && ascii.contains("  [FAIL] "),
            "{locale:?}: {ascii}"
        );
        assert!(
            !ascii.contains('✓') && !ascii.contains('✗'),
            "{locale:?}: {ascii}"
        );
    }
}

#[test]
fn a_misspelt_module_step_or_check_gets_did_you_mean() {
    let world = World::at("step-3");
    let cases: &[(&[&str], &str)] = &[
        (
            &["module10", "step-4"],
            "no module `module10` in this course (did you mean `module-10`?)",
        ),
        (
            &["module-10", "step4"],
            "has no step `step4` (did you mean `step-4`?)",
        ),
        (&["module-10", "brake-it"], "(did you mean `break-it`?)"),
        (
            &["module-10", "break-it/fx"],
            "(did you mean `break-it/fix`?)",
        ),
        (
            &["hint", "module-10", "step-4", "release-push"],
            "has no check `release-push` (did you mean `release-pushed`?)",
        ),
    ];
    for (args, message) in cases {
        let wrong = run(&world, args);
        assert_eq!(wrong.code, 2, "{args:?}");
        assert!(wrong.stderr.contains(message), "{args:?}: {}", wrong.stderr);
    }
    let stranger = run(&world, &["module-10", "deploy"]);
    assert!(
        !stranger.stderr.contains("did you mean"),
        "{}",
        stranger.stderr
    );
}

#[test]
fn the_man_page_has_exit_status_environment_files_and_rendered_examples() {
    let home = tempfile::tempdir().expect("home");
    let man = labcheck(home.path(), &["man"]);
    assert_eq!(man.code, 0, "{}", man.stderr);
    let page = home.path().join("labcheck.1");
    std::fs::write(&page, &man.stdout).expect("the page");
    let rendered = std::process::Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-rLL=200n", "-P-c", "-P-b", "-P-u"])
        .arg(&page)
        .output()
        .expect("groff runs");
    let warnings = String::from_utf8_lossy(&rendered.stderr);
    assert!(warnings.trim().is_empty(), "{warnings}");
    // groff marks bold by overstriking; read the text without it.
    let text: String = String::from_utf8_lossy(&rendered.stdout)
        .split('\u{8}')
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.get(1..).unwrap_or("")
            }
        })
        .collect::<String>()
        // groff's minus and hyphen glyphs, as typed.
        .replace(['\u{2212}', '\u{2010}'], "-");
    for section in ["EXAMPLES", "EXIT STATUS", "ENVIRONMENT", "FILES"] {
        assert!(
            text.contains(&format!("\n{section}\n")),
            "no {section}:\n{text}"
        );
    }
    for line in [
        "labcheck module-10 --report junit=labcheck.xml --report json=labcheck.json",
        "labcheck module-10 -o json",
        "130",
        "CLICOLOR_FORCE, FORCE_COLOR",
        "$XDG_STATE_HOME/labcheck/progress",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
}

#[test]
fn readme_exit_code_table_is_whole() {
    let readme = include_str!("../../README.md");
    let doc = include_str!("../../docs/ci.md");
    for code in ["| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"] {
        assert!(readme.contains(code), "README lacks exit code {code}");
        assert!(doc.contains(code), "docs/ci.md lacks exit code {code}");
    }
}

#[test]
fn commands_with_their_own_formats_take_o_too_and_refuse_what_they_cannot_give() {
    let home = tempfile::tempdir().expect("home");
    let short = labcheck(home.path(), &["course", "lint", "-o", "json"]);
    let long = labcheck(home.path(), &["course", "lint", "--format", "json"]);
    assert_eq!(short.code, 0, "{}", short.stderr);
    assert_eq!(short.stdout, long.stdout);
    assert_eq!(short.json()["status"], "pass");
    for command in [&["course", "lint"][..], &["demo"], &["plan", "."]] {
        let refused = labcheck(home.path(), &[command, &["-o", "junit"]].concat());
        assert_eq!(refused.code, 2, "{command:?}");
        assert!(
            refused.stderr.contains("invalid value 'junit'"),
            "{command:?}: {}",
            refused.stderr
        );
    }
}
