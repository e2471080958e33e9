//! A bundle replays offline to the verdicts of the run that wrote it: for every fixture state of
//! module 10 (real git repos, the state's served cluster), `labcheck bundle` writes a bundle, the
//! world and its cluster go away, and `labcheck MODULE STEP --bundle FILE` gives every check the
//! status and cause the live run gave it, and the same exit code.

use crate::harness::MODULE;
use labcheck::course::fixtures::State;
use labcheck::lab::cluster::{self as lab_cluster, Revisions};
use labcheck::lab::fixtures;
use labcheck::serve::ServeOptions;

use crate::harness::{Labcheck, kubeconfig_at, runtime, serve_on, verdicts};

#[test]
fn every_module_10_fixture_state_replays_from_its_bundle_to_the_live_verdicts() {
    let rt = runtime();
    let module = fixtures::module(MODULE).expect("module 10's fixtures");
    // Every step's solved and broken states, and every step on the fresh lab (`fresh.yaml`).
    let mut states: Vec<(&str, &State)> = module
        .steps
        .iter()
        .flat_map(|s| {
            std::iter::once(&s.solved)
                .chain(&s.broken)
                .map(move |state| (s.step.as_str(), state))
        })
        .collect();
    states.extend(
        module
            .steps
            .iter()
            .map(|s| (s.step.as_str(), &module.fresh)),
    );
    assert!(states.len() > 20, "module 10 has its fixture states");
    let root = tempfile::tempdir().expect("a temp dir");
    let mut problems = Vec::new();
    for (n, (step, state)) in states.iter().enumerate() {
        let fresh = std::ptr::eq(*state, &module.fresh);
        let name = if fresh { "fresh" } else { state.name.as_str() };
        let at = root.path().join(format!("{n:02}"));
        let home = at.join("home");
        std::fs::create_dir_all(&home).expect("home");
        let lab = at.join("lab");
        let world = if fresh {
            labcheck::lab::cache::at(&lab, "module-10", "fresh")
        } else {
            labcheck::lab::cache::in_state(&lab, MODULE, step, name)
        }
        .expect("the state's world");
        let revs = Revisions::of_world(&world).expect("revisions");
        let snapshot = lab_cluster::of_state(state, &revs).expect("the state's cluster");
        let server = serve_on(&rt, snapshot, ServeOptions::default());
        let kc = kubeconfig_at(&home.join("kc.yaml"), &server.url(), "lab");
        let (kc, wd) = (
            kc.display().to_string(),
            world.work_dir().display().to_string(),
        );
        let out = at.join("bundle.tar.zst").display().to_string();
        let live = Labcheck::new(&home)
            .args([MODULE, step, "--no-wait", "-o", "json"])
            .args(["--kubeconfig", &kc, "--work-dir", &wd])
            .run();
        let made = Labcheck::new(&home)
            .args(["bundle", MODULE, step, "-o", &out])
            .args(["--kubeconfig", &kc, "--work-dir", &wd])
            .run();
        assert_eq!(
            made.code, 0,
            "{step} {name}: {}{}",
            made.stdout, made.stderr
        );
        // Nothing of the learner's is left to read: no cluster, no repos.
        drop(server);
        std::fs::remove_dir_all(&lab).expect("the world removed");
        std::fs::remove_file(&kc).expect("the kubeconfig removed");
        let replayed = Labcheck::new(&home)
            .args([MODULE, step, "--bundle", &out, "-o", "json"])
            .run();
        let (want, got) = (verdicts(&live.json()), verdicts(&replayed.json()));
        assert!(
            !want.is_empty(),
            "{step} {name}: no checks in {}",
            live.stdout
        );
        if want != got {
            problems.push(format!(
                "{step} {name}: live {want:?}\n    replayed {got:?}\n    {}",
                replayed.stderr
            ));
        }
        if live.code != replayed.code {
            problems.push(format!(
                "{step} {name}: live exit {}, replayed exit {}",
                live.code, replayed.code
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// How a learner's setup can keep labcheck from looking, for the table below.
enum Trouble {
    /// The API answers 403 to reads of these resources.
    Forbidden(&'static str),
    /// Nothing listens where the kubeconfig points.
    Unreachable,
    /// A work repo is not cloned.
    RepoMissing(&'static str),
    /// A work repo is a plain folder.
    NotARepo(&'static str),
}

/// What could not be read replays as what it was: the same "could not check" and cause (a 403,
/// no answer at all, a repo missing or not a repo), never a verdict the bundle cannot back.
#[test]
fn what_could_not_be_read_replays_as_it_was() {
    let rt = runtime();
    let root = tempfile::tempdir().expect("a temp dir");
    let rows = [
        ("step-4", Trouble::Forbidden("applications")),
        ("step-4", Trouble::Forbidden("pods")),
        ("step-4", Trouble::Unreachable),
        ("step-4", Trouble::RepoMissing("checkout-config")),
        ("step-1", Trouble::NotARepo("argocd-platform")),
    ];
    let mut problems = Vec::new();
    for (n, (step, trouble)) in rows.iter().enumerate() {
        let at = root.path().join(format!("{n:02}"));
        let home = at.join("home");
        std::fs::create_dir_all(&home).expect("home");
        let lab = at.join("lab");
        let world = labcheck::lab::cache::in_state(&lab, MODULE, step, "solved").expect("a world");
        let revs = Revisions::of_world(&world).expect("revisions");
        let state = fixtures::state(MODULE, step, "solved").expect("the state");
        let snapshot = lab_cluster::of_state(state, &revs).expect("the state's cluster");
        let options = match trouble {
            Trouble::Forbidden(resource) => ServeOptions {
                fail_with: Some(403),
                fail_resources: vec![resource.to_string()],
                ..ServeOptions::default()
            },
            _ => ServeOptions::default(),
        };
        let server = serve_on(&rt, snapshot, options);
        let url = match trouble {
            // A port that was free a moment ago: nothing answers there.
            Trouble::Unreachable => {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
                let url = format!("http://{}", listener.local_addr().expect("an address"));
                drop(listener);
                url
            }
            _ => server.url(),
        };
        match trouble {
            Trouble::RepoMissing(dir) => {
                std::fs::remove_dir_all(world.work_dir().join(dir)).expect("removed")
            }
            Trouble::NotARepo(dir) => {
                std::fs::remove_dir_all(world.work_dir().join(dir).join(".git")).expect("removed")
            }
            _ => {}
        }
        let kc = kubeconfig_at(&home.join("kc.yaml"), &url, "lab");
        let (kc, wd) = (
            kc.display().to_string(),
            world.work_dir().display().to_string(),
        );
        let out = at.join("bundle.tar.zst").display().to_string();
        // The learner's run and the bundle read the same cluster and work repos.
        let on = [
            "--kubeconfig",
            &kc,
            "--work-dir",
            &wd,
            "--request-timeout",
            "2s",
        ];
        let live = Labcheck::new(&home)
            .args([MODULE, step, "--no-wait", "-o", "json"])
            .args(on)
            .run();
        let made = Labcheck::new(&home)
            .args(["bundle", MODULE, step, "-o", &out])
            .args(on)
            .run();
        assert_eq!(made.code, 0, "{step} {n}: {}{}", made.stdout, made.stderr);
        drop(server);
        std::fs::remove_dir_all(&lab).expect("the world removed");
        let replayed = Labcheck::new(&home)
            .args([MODULE, step, "--bundle", &out, "-o", "json"])
            .run();
        let (want, got) = (verdicts(&live.json()), verdicts(&replayed.json()));
        assert!(
            want.iter().any(|(_, _, status, _)| status == "error"),
            "row {n}: the trouble kept nothing from being read: {want:?}"
        );
        if want != got || live.code != replayed.code {
            problems.push(format!(
                "row {n} ({step}): live {want:?} exit {}\n    replayed {got:?} exit {}",
                live.code, replayed.code
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
