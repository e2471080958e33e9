//! The docs are run: every `labcheck …` command in README.md's shell blocks and in `--help`'s
//! examples runs, as written, in a lab built from the course's fixtures (module 10 with step 4
//! done and its cluster served as `~/.kube/config`, module 11's shop-config beside it), in the
//! order of [`DOCUMENTED`], and must exit as listed there and say what is listed. A command the
//! docs add must be added here, with its exit code or the reason it cannot run without a live
//! cluster or another tool.

use std::path::Path;
use std::time::Duration;

use labcheck::lab::cluster::{self, Revisions};
use labcheck::serve::ServeOptions;

use crate::harness::{Labcheck, World, kubeconfig_at, runtime, serve_on};

/// What a documented command must do in the lab.
enum Expect {
    /// Exit with this code, printing (stdout or stderr) this text.
    Exits(i32, &'static str),
    /// Written with a placeholder: run this stand-in instead, which must exit so and say this.
    As(&'static str, i32, &'static str),
    /// A server: it prints how to reach it, then runs until Ctrl-C, which ends it with 0.
    ServesUntilCtrlC,
    /// Not run here, and why.
    NotRun(&'static str),
}

/// Every documented command, in the order they run (later ones see what earlier ones left:
/// progress, `class-a.yaml`).
const DOCUMENTED: &[(&str, Expect)] = &[
    (
        "cargo binstall labcheck",
        Expect::NotRun(
            "needs crates.io and a published release; tests/labcheck/installer.rs checks binstall's pkg-url names the assets the release workflow builds",
        ),
    ),
    (
        "cargo install labcheck --locked",
        Expect::NotRun(
            "needs the crate on crates.io; .ci/run builds the crate it would download with `cargo package --locked`",
        ),
    ),
    (
        "labcheck --version",
        Expect::Exits(0, "(course module-10 module-11, fingerprint "),
    ),
    ("labcheck list", Expect::Exits(0, "module-10")),
    (
        "labcheck module-10 step-4",
        Expect::Exits(0, "step-4: done"),
    ),
    (
        "labcheck module-10 step-4 --watch",
        Expect::Exits(0, "next: step-5"),
    ),
    (
        "labcheck module-10",
        Expect::Exits(1, "next: step-5 — run `labcheck module-10 step-5`"),
    ),
    (
        "labcheck module-10 break-it/fix",
        Expect::Exits(1, "break-it/fix: not done yet"),
    ),
    (
        "labcheck module-10 -o json",
        Expect::Exits(1, r#""module": "module-10""#),
    ),
    (
        "labcheck module-10 --report junit=labcheck.xml --report json=labcheck.json",
        Expect::Exits(1, "next: step-5"),
    ),
    (
        "labcheck status",
        Expect::Exits(0, "next: module-10 step-5"),
    ),
    ("labcheck next", Expect::Exits(1, "step-5: not done yet")),
    (
        "labcheck hint module-10 step-4",
        Expect::Exits(0, "no check of module-10 step-4 failed"),
    ),
    (
        "labcheck reset module-10 step-4",
        Expect::Exits(2, "without a terminal to ask on"),
    ),
    (
        "labcheck module-10 quiz",
        Expect::Exits(2, "--answers 1=a,2=a,3=a"),
    ),
    ("labcheck track", Expect::Exits(0, "module-10")),
    ("labcheck completions bash", Expect::Exits(0, "complete -F")),
    ("labcheck demo", Expect::Exits(0, "nothing was left behind")),
    (
        "cargo run --release -- demo",
        Expect::As("labcheck demo", 0, "── 4/4"),
    ),
    (
        "labcheck plan ~/work/shop-config/manifests",
        Expect::Exits(0, "PreSync"),
    ),
    (
        "labcheck plan --rules DIR…",
        Expect::As(
            "labcheck plan --rules ~/work/shop-config/manifests ~/work/shop-config/argocd",
            1,
            "warning",
        ),
    ),
    (
        "labcheck plan --rules DIR",
        Expect::As(
            "labcheck plan --rules ~/work/shop-config/manifests",
            1,
            "warning",
        ),
    ),
    (
        "labcheck plan --rules manifests/ argocd/",
        Expect::As(
            "labcheck plan --rules ~/work/shop-config/manifests/ ~/work/shop-config/argocd/",
            1,
            "warning",
        ),
    ),
    (
        "labcheck plan --follow root-app.yaml",
        Expect::As(
            "labcheck plan --follow ~/work/argocd-platform/bootstrap/app-of-apps.yaml",
            0,
            "Child Application namespaces",
        ),
    ),
    (
        "helm template shop chart/ | labcheck plan -",
        Expect::NotRun(
            "needs helm and a chart; `labcheck plan -` on rendered Helm output is tests/labcheck/plan.rs",
        ),
    ),
    (
        "labcheck doctor module-10",
        Expect::NotRun(
            "judges this machine's tools and a live Argo CD's pods, so its verdict depends on the machine; tests/labcheck/doctor.rs runs it with tools it controls",
        ),
    ),
    (
        "labcheck class serve module-10 step-4 --kubeconfigs DIR --work-dirs DIR/{learner}",
        Expect::NotRun(
            "needs a class of served clusters and a browser to look at; tests/labcheck/class_page.rs serves one and reads the page in headless Chromium",
        ),
    ),
    (
        "labcheck bundle module-10 step-4 -o bundle.tar.zst",
        Expect::Exits(0, "wrote bundle.tar.zst"),
    ),
    (
        "labcheck module-10 step-4 --bundle bundle.tar.zst",
        Expect::Exits(0, "step-4: done"),
    ),
    (
        "labcheck serve --bundle bundle.tar.zst --write-kubeconfig kc",
        Expect::ServesUntilCtrlC,
    ),
    (
        "labcheck snapshot module-10 --out class-a.yaml",
        Expect::Exits(0, "to class-a.yaml"),
    ),
    (
        "labcheck module-10 step-4 --snapshot class-a.yaml",
        Expect::Exits(0, "step-4: done"),
    ),
    (
        "labcheck serve class-a.yaml --write-kubeconfig kc",
        Expect::ServesUntilCtrlC,
    ),
];

/// The `labcheck …` command lines of README.md's shell blocks, comments cut, in order.
fn readme_commands() -> Vec<String> {
    let readme = include_str!("../../README.md");
    let mut commands = Vec::new();
    let mut in_shell = false;
    for line in readme.lines() {
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            in_shell = !in_shell && ["sh", "console", "bash", "shell"].contains(&fence.trim());
            continue;
        }
        if !in_shell {
            continue;
        }
        let line = line.trim();
        let line = line.strip_prefix("$ ").unwrap_or(line);
        let command = line.split(" # ").next().unwrap_or("").trim();
        let runs_labcheck =
            command.split_whitespace().any(|w| w == "labcheck") || command.starts_with("cargo run");
        if runs_labcheck {
            commands.push(command.to_string());
        }
    }
    commands
}

/// `--help`'s examples.
fn help_examples() -> Vec<String> {
    labcheck::cli::EXAMPLES
        .iter()
        .map(|(command, _)| command.to_string())
        .collect()
}

#[test]
fn every_documented_command_is_in_the_table_and_nothing_else_is() {
    let listed: Vec<&str> = DOCUMENTED.iter().map(|(c, _)| *c).collect();
    let documented: Vec<String> = readme_commands()
        .into_iter()
        .chain(help_examples())
        .collect();
    assert!(
        documented.len() >= 20,
        "the README and --help show their commands: {documented:?}"
    );
    for command in &documented {
        assert!(
            listed.contains(&command.as_str()),
            "the docs show `{command}`: add it to DOCUMENTED with its exit code, or the reason it needs a live cluster"
        );
    }
    for command in listed {
        assert!(
            documented.iter().any(|d| d == command),
            "`{command}` is no longer in README.md or --help: take it out of DOCUMENTED"
        );
    }
}

/// The words of a command line as a shell would pass them (`~/` expanded; no quoting in the
/// docs' commands), without the leading `labcheck`.
fn argv(command: &str, home: &Path) -> Vec<String> {
    let home = home.display().to_string();
    command
        .split_whitespace()
        .skip(1)
        .map(|word| match word.strip_prefix("~/") {
            Some(rest) => format!("{home}/{rest}"),
            None => word.to_string(),
        })
        .collect()
}

#[test]
fn every_documented_command_runs_in_the_fixture_lab_and_exits_as_documented() {
    let world = World::at("step-4");
    let home = world.home().to_path_buf();
    // Module 11's shop-config beside module 10's repos, for `labcheck plan`.
    let shop = tempfile::tempdir().expect("a temp dir");
    let shop_world =
        labcheck::lab::cache::at(shop.path(), "module-11", "fresh").expect("the shop world");
    std::fs::rename(
        shop_world.work_dir().join("shop-config"),
        home.join("work/shop-config"),
    )
    .expect("shop-config moves into ~/work");
    // The cluster as step 4 left it, served as the learner's ~/.kube/config.
    let revs = Revisions::of_world(&world.lab).expect("pushed revisions");
    let snapshot = cluster::solved("step-4", &revs).expect("a fixture state");
    let rt = runtime();
    let server = serve_on(&rt, snapshot, ServeOptions::default());
    kubeconfig_at(&home.join(".kube/config"), &server.url(), "lab");

    let mut problems = Vec::new();
    for (shown, expect) in DOCUMENTED {
        let (command, code, says) = match expect {
            Expect::Exits(code, says) => (*shown, *code, *says),
            Expect::As(stand_in, code, says) => (*stand_in, *code, *says),
            Expect::NotRun(why) => {
                assert!(!why.is_empty(), "`{shown}` says why it is not run");
                continue;
            }
            Expect::ServesUntilCtrlC => {
                let mut serving = Labcheck::new(&home)
                    .args(argv(shown, &home))
                    .limit(Duration::from_secs(30))
                    .spawn();
                let banner = serving.read_until("Press Ctrl-C").join("\n");
                serving.interrupt();
                let stopped = serving.wait_within(Duration::from_secs(10));
                if stopped.code != 0 || !banner.contains("try: kubectl --kubeconfig kc") {
                    problems.push(format!(
                        "`{shown}`: exit {} after Ctrl-C, banner:\n{banner}\n{}",
                        stopped.code, stopped.stderr
                    ));
                }
                continue;
            }
        };
        let run = Labcheck::new(&home)
            .args(argv(command, &home))
            .limit(Duration::from_secs(90))
            .run();
        let printed = format!("{}{}", run.stdout, run.stderr);
        if run.code != code || !printed.contains(says) {
            problems.push(format!(
                "`{command}`: exit {} (documented {code}), saying `{says}`: {}\n{printed}",
                run.code,
                printed.contains(says)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(
        server.requests.writes().is_empty(),
        "no documented command writes to the cluster"
    );
}
