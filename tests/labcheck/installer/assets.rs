//! One set of names for the release's binaries: the release workflow builds them, install.sh asks
//! for them, `cargo binstall` derives them from Cargo.toml, and the README's line fetches the
//! installer from the same releases. A target renamed in one place and not the others would
//! leave a learner with a 404.

use std::collections::BTreeSet;

use super::TAG;
use super::learner::Learner;
use crate::installer::release::Release;

fn repo_file(path: &str) -> String {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The value of `key = "…"` on its own line in Cargo.toml.
fn cargo_toml(key: &str) -> String {
    let manifest = repo_file("Cargo.toml");
    let prefix = format!("{key} = \"");
    manifest
        .lines()
        .find_map(|line| line.strip_prefix(&prefix)?.strip_suffix('"'))
        .unwrap_or_else(|| panic!("Cargo.toml has no `{key} = \"…\"` line"))
        .to_string()
}

/// The targets release.yml's build matrix lists (`- { target: T, runner: R }`).
fn built_targets() -> BTreeSet<String> {
    repo_file(".github/workflows/release.yml")
        .lines()
        .filter_map(|line| line.split("{ target: ").nth(1)?.split(',').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn installer_workflow_and_binstall_name_the_same_release_binaries() {
    let targets = built_targets();
    assert_eq!(
        targets.len(),
        4,
        "Linux and macOS, x86_64 and arm64: {targets:?}"
    );

    // What install.sh asks for on each machine a learner brings (uname's spellings included).
    let release = Release::served();
    let sums: String = targets
        .iter()
        .map(|target| format!("{}  labcheck-{target}\n", "0".repeat(64)))
        .collect();
    release.add_sums(TAG, &sums);
    for (os, arch) in [
        ("Linux", "x86_64"),
        ("Linux", "amd64"),
        ("Linux", "aarch64"),
        ("Linux", "arm64"),
        ("Darwin", "x86_64"),
        ("Darwin", "arm64"),
    ] {
        let learner = Learner::new();
        let run = learner.install(
            &release,
            &[],
            &[("LABCHECK_UNAME_S", os), ("LABCHECK_UNAME_M", arch)],
        );
        assert!(
            run.stderr.contains("could not download"),
            "{os} {arch}: {}",
            run.stderr
        );
    }
    let asked: BTreeSet<String> = release
        .asked()
        .iter()
        .filter_map(|path| path.strip_prefix("/releases/latest/download/labcheck-"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        asked, targets,
        "install.sh asks for exactly the binaries release.yml builds"
    );

    // cargo binstall's URL for each, from [package.metadata.binstall].
    let repository = cargo_toml("repository");
    let pkg_url = cargo_toml("pkg-url");
    for target in &targets {
        let url = pkg_url
            .replace("{ repo }", &repository)
            .replace("{ version }", env!("CARGO_PKG_VERSION"))
            .replace("{ name }", "labcheck")
            .replace("{ target }", target)
            .replace("{ binary-ext }", "");
        assert_eq!(
            url,
            format!("{repository}/releases/download/{TAG}/labcheck-{target}")
        );
    }

    // install.sh's releases are Cargo.toml's repository's, and the README fetches it from there.
    let installer = repo_file("install.sh");
    assert!(
        installer.contains(&format!("LABCHECK_RELEASES_URL:-{repository}/releases}}")),
        "install.sh downloads from {repository}/releases"
    );
    let one_line = format!("curl -fsSL {repository}/releases/latest/download/install.sh | sh");
    assert!(
        repo_file("README.md").contains(&one_line),
        "the README's line is `{one_line}`"
    );
    assert!(
        repo_file(".github/scripts/release-publish.sh").contains("cp install.sh dist/"),
        "every release carries install.sh"
    );
}
