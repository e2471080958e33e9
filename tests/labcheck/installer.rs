//! install.sh, as a learner runs it (`curl … | sh`, here `sh install.sh`: dash where /bin/sh is
//! dash), against a release served on loopback that holds the labcheck binary these tests run:
//! what it installs, where, what it says, and every way it refuses with nothing installed.

mod assets;
mod learner;
mod release;

use std::path::Path;

use learner::{Learner, listing, version_of};
use release::{Release, labcheck_binary};

const INSTALL_SH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh");
const TAG: &str = concat!("v", env!("CARGO_PKG_VERSION"));
/// The release's asset for the machine the tests say they are (`Linux`, `x86_64`).
const LINUX_X86: &str = "x86_64-unknown-linux-musl";

#[test]
fn installer_puts_labcheck_in_local_bin_and_says_what_to_add_to_path() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let learner = Learner::new();
    let run = learner.install(&release, &[], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let installed = learner.local_bin().join("labcheck");
    let (binary, _) = labcheck_binary();
    let said = version_of(&installed);
    assert_eq!(said, version_of(&binary), "the release's labcheck runs");
    assert!(said.starts_with(&format!("labcheck {} (course ", env!("CARGO_PKG_VERSION"))));
    assert_eq!(
        listing(&learner.local_bin()),
        ["labcheck"],
        "nothing else is left"
    );
    assert_eq!(
        listing(learner.tmp.path()),
        Vec::<String>::new(),
        "temp is clean"
    );
    assert_eq!(
        release.asked(),
        [
            "/releases/latest/download/SHA256SUMS".to_string(),
            format!("/releases/latest/download/labcheck-{LINUX_X86}"),
        ],
        "latest is the default"
    );
    let bin = learner.local_bin().display().to_string();
    assert!(
        run.stderr
            .contains(&format!("installed {said} to {bin}/labcheck")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{bin} is not on your PATH"))
            && run.stderr.contains(&format!("export PATH=\"{bin}:$PATH\"")),
        "it says what to add to PATH: {}",
        run.stderr
    );
}

#[test]
fn installer_takes_the_folder_from_to_and_the_release_from_version() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let learner = Learner::new();
    let tools = learner.home.path().join("tools");
    let version = env!("CARGO_PKG_VERSION"); // without the v, as a learner may type it
    let path = format!("{}:/usr/bin:/bin", tools.display());
    let run = learner.install(
        &release,
        &["--to", &tools.display().to_string(), "--version", version],
        &[("PATH", &path)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(listing(&tools), ["labcheck"]);
    assert!(!learner.local_bin().exists(), "~/.local/bin is left alone");
    assert_eq!(
        release.asked().last().map(String::as_str),
        Some(format!("/releases/download/{TAG}/labcheck-{LINUX_X86}").as_str())
    );
    assert!(
        !run.stderr.contains("not on your PATH"),
        "a folder already on PATH needs no advice: {}",
        run.stderr
    );
}

#[test]
fn installer_piped_to_sh_installs_as_the_readme_line_does() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let learner = Learner::new();
    let script = std::fs::read(INSTALL_SH).expect("install.sh");
    let tools = learner.home.path().join("tools");
    let run = learner.install_piped(&release, &script, &["--to", &tools.display().to_string()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (binary, _) = labcheck_binary();
    assert_eq!(version_of(&tools.join("labcheck")), version_of(&binary));
}

#[test]
fn an_installer_download_cut_short_and_piped_to_sh_runs_nothing() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let learner = Learner::new();
    let script = std::fs::read(INSTALL_SH).expect("install.sh");
    // Cut inside main's body: every step before main's call has arrived, the call has not.
    let cut = script
        .windows(b"  put_in_place".len())
        .rposition(|w| w == b"  put_in_place")
        .expect("main calls put_in_place");
    let run = learner.install_piped(&release, &script[..cut], &[]);
    assert_ne!(
        run.code, 0,
        "a script without its end fails: {}",
        run.stderr
    );
    assert_eq!(
        release.asked(),
        Vec::<String>::new(),
        "nothing was downloaded"
    );
    assert_eq!(listing(&learner.local_bin()), Vec::<String>::new());
    assert_eq!(listing(learner.tmp.path()), Vec::<String>::new());
}

#[test]
fn installer_downloads_with_wget_where_there_is_no_curl() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let learner = Learner::new();
    // A PATH with what install.sh runs, wget instead of curl.
    let bin = learner.home.path().join("no-curl");
    std::fs::create_dir(&bin).expect("a folder for the PATH");
    for tool in [
        "sh",
        "wget",
        "mktemp",
        "rm",
        "rmdir",
        "awk",
        "cut",
        "sha256sum",
        "cp",
        "chmod",
        "head",
        "mv",
        "cat",
        "mkdir",
    ] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|dir| Path::new(dir).join(tool))
            .find(|path| path.exists())
            .unwrap_or_else(|| panic!("this test needs {tool} in /usr/bin or /bin"));
        std::os::unix::fs::symlink(found, bin.join(tool)).expect("a tool on the PATH");
    }
    let path = bin.display().to_string();
    let run = learner.install(&release, &[], &[("PATH", &path)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (binary, _) = labcheck_binary();
    assert_eq!(
        version_of(&learner.local_bin().join("labcheck")),
        version_of(&binary)
    );
}

#[test]
fn installer_refuses_a_platform_without_a_build_and_downloads_nothing() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    for (os, arch, says) in [
        ("Linux", "riscv64", "no labcheck build for Linux riscv64"),
        ("FreeBSD", "amd64", "no labcheck build for FreeBSD x86_64"),
        ("MINGW64_NT-10.0-19045", "x86_64", "install it in WSL 2"),
    ] {
        let learner = Learner::new();
        let run = learner.install(
            &release,
            &[],
            &[("LABCHECK_UNAME_S", os), ("LABCHECK_UNAME_M", arch)],
        );
        assert!(run.stderr.contains(says), "{os} {arch}: {}", run.stderr);
        learner.assert_nothing_installed(&run, &learner.local_bin(), &[]);
    }
    assert_eq!(release.asked(), Vec::<String>::new());
}

#[test]
fn installer_refuses_a_release_that_does_not_exist() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let learner = Learner::new();
    let run = learner.install(&release, &["--version", "v9.9.9"], &[]);
    assert!(
        run.stderr.contains(&format!(
            "could not download {}/download/v9.9.9/SHA256SUMS (is v9.9.9 a labcheck release?)",
            release.url
        )),
        "{}",
        run.stderr
    );
    learner.assert_nothing_installed(&run, &learner.local_bin(), &[]);
}

#[test]
fn installer_refuses_when_the_binary_for_this_machine_cannot_be_downloaded() {
    // SHA256SUMS lists the arm64 binary, but the server answers 404 for it.
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let sum = labcheck_binary().1;
    release.add_sums(
        TAG,
        &format!("{sum}  labcheck-{LINUX_X86}\n{sum}  labcheck-aarch64-unknown-linux-musl\n"),
    );
    let learner = Learner::new();
    let run = learner.install(&release, &[], &[("LABCHECK_UNAME_M", "aarch64")]);
    assert!(
        run.stderr.contains(&format!(
            "could not download {}/latest/download/labcheck-aarch64-unknown-linux-musl",
            release.url
        )),
        "{}",
        run.stderr
    );
    learner.assert_nothing_installed(&run, &learner.local_bin(), &[]);
}

#[test]
fn installer_refuses_a_download_cut_short() {
    let (_, sum) = labcheck_binary();
    let release = Release::served();
    let asset = format!("labcheck-{LINUX_X86}");
    release.add_sums(TAG, &format!("{sum}  {asset}\n"));
    release.add_cut_binary(TAG, &asset, 4096);
    let learner = Learner::new();
    let run = learner.install(&release, &[], &[]);
    assert!(
        run.stderr.contains(&format!(
            "could not download {}/latest/download/{asset}",
            release.url
        )),
        "{}",
        run.stderr
    );
    learner.assert_nothing_installed(&run, &learner.local_bin(), &[]);
}

#[test]
fn installer_refuses_a_checksum_that_does_not_match_and_keeps_the_labcheck_already_there() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    let wrong = "0".repeat(64);
    release.add_sums(TAG, &format!("{wrong}  labcheck-{LINUX_X86}\n"));
    let learner = Learner::new();
    let earlier = learner.local_bin().join("labcheck");
    std::fs::create_dir_all(learner.local_bin()).expect("~/.local/bin");
    std::fs::write(&earlier, "#!/bin/sh\necho labcheck 0.0.1\n").expect("an earlier labcheck");

    let run = learner.install(&release, &[], &[]);
    assert!(
        run.stderr.contains(&format!(
            "the checksum of labcheck-{LINUX_X86} does not match SHA256SUMS (expected {wrong}, got {})",
            labcheck_binary().1
        )),
        "{}",
        run.stderr
    );
    learner.assert_nothing_installed(&run, &learner.local_bin(), &["labcheck".to_string()]);
    assert_eq!(
        std::fs::read_to_string(&earlier).ok().as_deref(),
        Some("#!/bin/sh\necho labcheck 0.0.1\n"),
        "the labcheck already installed is untouched"
    );
}

#[test]
fn installer_refuses_a_checksum_file_that_does_not_list_the_binary() {
    let release = Release::of_labcheck(TAG, LINUX_X86);
    release.add_sums(TAG, &format!("{}  labcheck-other\n", labcheck_binary().1));
    let learner = Learner::new();
    let run = learner.install(&release, &[], &[]);
    assert!(
        run.stderr.contains(&format!(
            "SHA256SUMS lists no checksum for labcheck-{LINUX_X86}"
        )),
        "{}",
        run.stderr
    );
    learner.assert_nothing_installed(&run, &learner.local_bin(), &[]);
    assert_eq!(
        release.asked(),
        ["/releases/latest/download/SHA256SUMS"],
        "a binary it could not check is not even downloaded"
    );
}
