//! What labcheck captures from the real server, with the real binary: `labcheck snapshot` (a
//! snapshot file of what a module's checks read) and `labcheck bundle` (a learner's run and what
//! it read). A bundle holds the live run's report; `labcheck MODULE --bundle FILE` replays it
//! offline (its probes answered from the recording, its cluster part served in-process) and must
//! say what the live run said, step by step and check by check, with the same exit code.

use std::path::Path;
use std::process::Command;

use labcheck::outcome::Status;
use labcheck::snapshot::Snapshot;
use serde_json::Value;

use crate::plane::Plane;

/// `labcheck ARGS` with `home` as HOME and no colour: (exit code, stdout, stderr).
fn labcheck(home: &Path, args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_labcheck"))
        .args(args)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("LABCHECK_WORK_DIR")
        .env_remove("KUBECONFIG")
        .output()
        .expect("labcheck runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `labcheck snapshot MODULE` of the real server for the learner whose repos are in `work`,
/// written to `out` and loaded.
pub fn snapshot_of_real(plane: &Plane, module: &str, work: &Path, out: &Path) -> Snapshot {
    let home = out.parent().unwrap_or(out);
    let os = |s: &str| std::ffi::OsString::from(s);
    let (code, _, err) = labcheck(
        home,
        &[
            &os("snapshot"),
            &os(module),
            &os("--out"),
            out.as_os_str(),
            &os("--kubeconfig"),
            plane.admin_kubeconfig.as_os_str(),
            &os("--work-dir"),
            work.as_os_str(),
        ],
    );
    assert_eq!(code, 0, "labcheck snapshot {module}: {err}");
    Snapshot::load(out).expect("the captured snapshot loads")
}

/// Where a report names the cluster it read (the live server, the bundle), one word for both.
fn without_cluster_names(report: &str, names: &[&str]) -> Value {
    let mut text = report.to_string();
    for name in names {
        text = text.replace(name, "<cluster>");
    }
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// Take `labcheck bundle MODULE` of the real server for the learner whose repos are in `work`,
/// replay it, and return how the replay's report differs from the bundle's own (the live run's):
/// one line per difference.
pub fn bundle_replay_differences(
    plane: &Plane,
    module: &str,
    work: &Path,
    scratch: &Path,
) -> Vec<String> {
    let file = scratch.join("bundle.tar.zst");
    let os = |s: &str| std::ffi::OsString::from(s);
    let (code, _, err) = labcheck(
        scratch,
        &[
            &os("bundle"),
            &os(module),
            &os("-o"),
            file.as_os_str(),
            &os("--kubeconfig"),
            plane.admin_kubeconfig.as_os_str(),
            &os("--work-dir"),
            work.as_os_str(),
        ],
    );
    assert_eq!(code, 0, "labcheck bundle {module}: {err}");
    let bundle = labcheck::bundle::Bundle::load(&file).expect("the bundle loads");
    let live =
        String::from_utf8_lossy(bundle.get("report.json").expect("a report.json")).into_owned();
    let (replay_code, replayed, err) = labcheck(
        scratch,
        &[
            &os(module),
            &os("--bundle"),
            file.as_os_str(),
            &os("-o"),
            &os("json"),
        ],
    );
    let names = [plane.url.as_str()];
    let live = without_cluster_names(&live, &names);
    let replayed = without_cluster_names(&replayed, &[&file.display().to_string()]);
    let status = [Status::Pass, Status::Skip, Status::Error, Status::Fail]
        .into_iter()
        .find(|s| serde_json::to_value(s).ok().as_ref() == Some(&live["status"]))
        .unwrap_or_else(|| panic!("the live report has no status: {live}"));
    let checks = live["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| s["checks"].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0);
    assert!(checks > 0, "the live report judged nothing: {live}");
    let mut out = Vec::new();
    let live_code = i32::from(labcheck::cli::exit_code(status));
    if replay_code != live_code {
        out.push(format!(
            "the replay of `labcheck bundle {module}` exits {replay_code}, the live run's verdict {live_code} ({err})"
        ));
    }
    if live != replayed {
        out.push(format!(
            "the replay of `labcheck bundle {module}` differs from the live run ({err}):\n  live:   {live}\n  replay: {replayed}"
        ));
    }
    out
}
