//! The lab's checkout chart (modules/module-10/lab/argocd-gitops/checkout-app/chart), rendered
//! with checkout-config's helm/dev.yaml at each point of the course (the worlds the course test
//! builds), shows the hooks, waves and images the course text names, and `labcheck plan --rules`
//! finds nothing to warn about in it.

use std::path::Path;

use labcheck::lab::chart;
use serde_yaml::Value;

use crate::harness::{Labcheck, World};

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)
            .expect("the chart folder reads")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("under the chart");
                let text = std::fs::read_to_string(&path).expect("a text file");
                out.push((rel.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    out
}

/// The chart as `helm template` would print it in this world: the chart's defaults under
/// checkout-config's helm/dev.yaml, as the Application's `$values/helm/dev.yaml` gives them.
fn rendered(world: &World) -> String {
    let work = world.lab.work_dir();
    let chart_dir = work.join("argocd-gitops/checkout-app/chart");
    let files = files(&chart_dir);
    let read = |text: &str| -> Value { serde_yaml::from_str(text).expect("values parse") };
    let defaults = files
        .iter()
        .find(|(p, _)| p == "values.yaml")
        .map(|(_, t)| read(t))
        .expect("the chart has values.yaml");
    let dev = read(
        &std::fs::read_to_string(work.join("checkout-config/helm/dev.yaml")).expect("dev.yaml"),
    );
    chart::render_chart("checkout", &files, &chart::coalesce(&defaults, &dev))
        .expect("the chart renders")
}

/// One object of the rendered chart by kind and name.
fn object<'d>(docs: &'d [Value], kind: &str, name: &str) -> Option<&'d Value> {
    docs.iter()
        .find(|d| d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name))
}

fn annotation<'d>(o: &'d Value, key: &str) -> Option<&'d str> {
    o["metadata"]["annotations"][key].as_str()
}

/// What the course text says of the chart at a point: which hooks exist, the Deployment's and
/// the migration's image tag, whether the migration fails, the smoke test's path.
struct Expect {
    point: &'static str,
    hooks: bool,
    tag: &'static str,
    migration_fails: bool,
    smoke_path: &'static str,
}

const POINTS: &[Expect] = &[
    Expect {
        point: "fresh",
        hooks: false,
        tag: "6.7.1",
        migration_fails: false,
        smoke_path: "",
    },
    Expect {
        point: "step-1",
        hooks: false,
        tag: "6.7.1",
        migration_fails: false,
        smoke_path: "",
    },
    Expect {
        point: "step-2",
        hooks: true,
        tag: "6.7.1",
        migration_fails: false,
        smoke_path: "/healthz",
    },
    Expect {
        point: "step-4",
        hooks: true,
        tag: "6.7.0",
        migration_fails: true,
        smoke_path: "/healthz",
    },
    Expect {
        point: "step-5",
        hooks: true,
        tag: "6.7.1",
        migration_fails: false,
        smoke_path: "/healthz",
    },
    Expect {
        point: "break-it/break",
        hooks: true,
        tag: "6.7.1",
        migration_fails: false,
        smoke_path: "/status/503",
    },
    Expect {
        point: "break-it/fix",
        hooks: true,
        tag: "6.7.1",
        migration_fails: false,
        smoke_path: "/healthz",
    },
];

#[test]
fn the_checkout_chart_renders_what_the_course_text_names_at_every_point() {
    for want in POINTS {
        let world = World::at(want.point);
        let text = rendered(&world);
        let at = want.point;
        let docs = labcheck::yaml::helm::parse_documents(&text).expect("rendered YAML parses");
        let docs: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();

        let config = object(&docs, "ConfigMap", "checkout-config").expect("the ConfigMap");
        assert_eq!(
            annotation(config, "argocd.argoproj.io/sync-wave"),
            Some("-1"),
            "{at}: config before the Deployment"
        );
        let deploy = object(&docs, "Deployment", "checkout").expect("the Deployment");
        let image = deploy["spec"]["template"]["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(
            image,
            format!("ghcr.io/stefanprodan/podinfo:{}", want.tag),
            "{at}"
        );
        assert!(
            object(&docs, "Service", "checkout").is_some(),
            "{at}: the Service"
        );

        let migrate = object(&docs, "Job", "checkout-migrate");
        let smoke = object(&docs, "Job", "checkout-smoke-test");
        let sync_failed = object(&docs, "Job", "checkout-sync-failed");
        assert_eq!(migrate.is_some(), want.hooks, "{at}: the migration hook");
        assert_eq!(smoke.is_some(), want.hooks, "{at}: the smoke test");
        assert_eq!(sync_failed.is_some(), want.hooks, "{at}: the SyncFail hook");
        let (Some(migrate), Some(smoke), Some(sync_failed)) = (migrate, smoke, sync_failed) else {
            continue;
        };
        for (job, phase) in [
            (migrate, "PreSync"),
            (smoke, "PostSync"),
            (sync_failed, "SyncFail"),
        ] {
            assert_eq!(
                annotation(job, "argocd.argoproj.io/hook"),
                Some(phase),
                "{at}: {job:?}"
            );
            // The course: "keeps the last run so you can read its logs".
            assert_eq!(
                annotation(job, "argocd.argoproj.io/hook-delete-policy"),
                Some("BeforeHookCreation"),
                "{at}"
            );
            assert_eq!(
                job["spec"]["backoffLimit"].as_u64(),
                Some(0),
                "{at}: a hook runs once"
            );
        }
        let container = &migrate["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(
            container["image"].as_str(),
            Some(image),
            "{at}: one tag for migration and app"
        );
        let script = container["args"][0].as_str().unwrap_or_default();
        assert_eq!(
            script.contains("exit 1"),
            want.migration_fails,
            "{at}: {script}"
        );
        assert!(script.contains("migrat"), "{at}: the log says what it did");
        let smoke_args = smoke["spec"]["template"]["spec"]["containers"][0]["args"]
            .as_sequence()
            .expect("args");
        let url = smoke_args
            .last()
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert_eq!(
            url,
            format!("http://checkout:9898{}", want.smoke_path),
            "{at}"
        );
        assert!(
            smoke_args.iter().any(|a| a.as_str() == Some("--fail")),
            "{at}: an HTTP 503 fails the test"
        );
    }
}

#[test]
fn plan_rules_find_nothing_to_warn_about_in_the_rendered_chart() {
    for want in POINTS {
        let world = World::at(want.point);
        let run = Labcheck::new(world.home())
            .args(["plan", "--rules", "-"])
            .stdin(rendered(&world))
            .run();
        assert_eq!(run.code, 0, "{}: {}{}", want.point, run.stdout, run.stderr);
        if want.hooks {
            // PreSync migration, wave -1 config, the app, PostSync smoke test: the course's order.
            let order = [
                "checkout-migrate",
                "checkout-config",
                "Deployment/checkout",
                "checkout-smoke-test",
            ];
            let at: Vec<usize> = order
                .iter()
                .map(|name| {
                    run.stdout
                        .find(name)
                        .unwrap_or_else(|| panic!("{name} in {}", run.stdout))
                })
                .collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", run.stdout);
        }
    }
}
