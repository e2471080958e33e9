//! What Argo CD's repo server resolves in an Application before it can render anything: the
//! `ref` names of a multi-source app, `$ref/…` and plain Helm value files, a chart's version and
//! a `targetRevision` that floats. Checked as the repo server checks them, each with Argo CD's
//! own error, or a note where Argo CD's behaviour decides what the plan can show.
//!
//! Sources (`AC:` argoproj/argo-cd `37ee0097`): `util/argo/argo.go:548-590` `GetRefSources`
//! (ref names, duplicates), `:593-622` `validateSourcePermissions` (a chart needs a
//! `targetRevision`); `reposerver/repository/repository.go:579-625` `resolveReferencedSources`
//! (only for `spec.sources`; the error texts), `:1460-1560` `getResolvedValueFiles` (a missing
//! file is handed to `helm template --values` unless `ignoreMissingValueFiles`), `util/io/path/
//! resolved.go:112-190` (relative to the source folder, `/…` from the repo root, never outside
//! it; URL schemes `https`, `http` by default: `util/settings/settings.go:1289`);
//! `util/git/client.go:903-1000` `LsRemote` (`HEAD` or empty: the default branch; a semver range
//! resolves to the newest matching tag; a branch to its newest commit).

use std::path::{Component, Path, PathBuf};

use super::files::{git_root, remote_urls, shown_from_cwd};
use crate::plan::AppSettings;
use crate::plan::app::AppSource;
use crate::probe::git::{RepoReader, RevisionKind, read_repo};

/// What resolving found, when Argo CD can render the app.
#[derive(Debug, Default)]
pub struct Resolved {
    /// Notes for the plan: a floating revision, sources the plan does not hold.
    pub notes: Vec<String>,
    /// The planned source's value files, shown from the current folder, in order (for the
    /// `helm template -f …` command).
    pub value_files: Vec<String>,
}

/// Resolve `app` as the repo server does. `planned`: the source whose folder (`folder`, as
/// shown) the plan reads, or whose chart the command renders; `also_here`: repo URLs known to be
/// this clone's (a parent Application's). `Err` is Argo CD's own error: it renders nothing then.
pub fn resolve(
    app: &AppSettings,
    planned: Option<&AppSource>,
    folder: Option<&Path>,
    also_here: &[String],
) -> Result<Resolved, String> {
    crate::plan::refs::ref_names(app)?;
    let root = folder.and_then(git_root);
    let mut here: Vec<String> = root.as_deref().map(remote_urls).unwrap_or_default();
    here.extend(also_here.iter().map(|u| crate::repo_url::normalise(u)));
    here.extend(
        planned
            .filter(|s| s.path.is_some())
            .map(|s| crate::repo_url::normalise(&s.repo_url)),
    );
    let this_repo = |url: &str| root.is_some() && here.contains(&crate::repo_url::normalise(url));
    let mut resolved = Resolved::default();
    for (index, source) in app.sources.iter().enumerate() {
        if source.chart.is_some() && source.target_revision.is_empty() {
            return Err(
                "spec.source.targetRevision is required if the manifest source is a helm chart"
                    .to_string(),
            );
        }
        let is_planned = planned.is_some_and(|p| p == source);
        let base = match (&root, &source.path) {
            (Some(root), Some(path)) if this_repo(&source.repo_url) => {
                Some(root.join(path.trim_start_matches("./")))
            }
            _ => None,
        };
        for file in &source.value_files {
            if let Some(shown) = value_file(
                app,
                source,
                file,
                root.as_deref(),
                base.as_deref(),
                &this_repo,
            )? && is_planned
                && !resolved.value_files.contains(&shown)
            {
                // `appendUnique`: a file named twice is passed once, where first named.
                resolved.value_files.push(shown);
            }
        }
        if let Some(note) = revision_note(source, root.as_deref(), this_repo(&source.repo_url))
            && !resolved.notes.contains(&note)
        {
            resolved.notes.push(note);
        }
        if planned.is_some() && !is_planned && (source.path.is_some() || source.chart.is_some()) {
            resolved.notes.push(format!(
                "source {} ({}) is rendered and synced with it too, in the same sync: this plan holds only the folder given; its objects are not in it",
                index + 1,
                describe(source)
            ));
        }
    }
    Ok(resolved)
}

fn describe(source: &AppSource) -> String {
    match (&source.chart, &source.path) {
        (Some(chart), _) => format!(
            "chart `{chart}` {} from {}",
            source.target_revision, source.repo_url
        ),
        (None, Some(path)) => format!("`{path}` of {}", source.repo_url),
        (None, None) => source.repo_url.clone(),
    }
}

/// One value file as `getResolvedValueFiles` resolves it; `Ok(Some(shown))` when it is a file
/// here, `Ok(None)` when it cannot be looked at here (another repo, a URL, a glob).
fn value_file(
    app: &AppSettings,
    source: &AppSource,
    file: &str,
    root: Option<&Path>,
    base: Option<&Path>,
    this_repo: &dyn Fn(&str) -> bool,
) -> Result<Option<String>, String> {
    // `$name/…` refers to the source with `ref: name`, in a multi-source app only.
    if app.multi_source && file.starts_with('$') {
        let rest = file.split_once('/').map_or("", |(_, rest)| rest);
        let target = crate::plan::refs::referenced(app, file)?;
        let Some(root) = root.filter(|_| this_repo(&target.repo_url)) else {
            return Ok(None);
        };
        return local(source, file, &format!("/{rest}"), root, root);
    }
    if let Some((scheme, _)) = file.split_once("://") {
        return if scheme == "https" || scheme == "http" {
            Ok(None)
        } else {
            Err(format!("the URL scheme '{scheme}' is not allowed"))
        };
    }
    match (root, base) {
        (Some(root), Some(base)) => local(source, file, file, root, base),
        _ => Ok(None),
    }
}

/// A local value file: relative to `base`, or from `root` when it starts with `/`; never outside
/// `root`; missing is Helm's error unless `ignoreMissingValueFiles`.
fn local(
    source: &AppSource,
    written: &str,
    path: &str,
    root: &Path,
    base: &Path,
) -> Result<Option<String>, String> {
    let joined = if let Some(from_root) = path.strip_prefix('/') {
        root.join(from_root)
    } else {
        base.join(path)
    };
    let Some(full) = lexical(&joined) else {
        return Err(format!("file '{path}' resolved to outside repository root"));
    };
    if !full.starts_with(root) || full == root {
        return Err(format!("file '{path}' resolved to outside repository root"));
    }
    if path.contains(['*', '?', '[']) {
        return Ok(None);
    }
    if !full.is_file() {
        if source.ignore_missing_value_files {
            return Ok(None);
        }
        return Err(format!(
            "value file `{written}` does not exist ({} is not there): Argo CD hands it to `helm template --values`, which fails with `open …: no such file or directory`. Fix the path, or set `helm.ignoreMissingValueFiles: true` to skip missing files",
            shown_from_cwd(full.parent().unwrap_or(root))
                .trim_end_matches('/')
                .to_string()
                + "/"
                + &full
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
        ));
    }
    Ok(Some(shown_from_cwd(&full)))
}

/// `..` and `.` taken out without touching the disk; `None` if it climbs above `/`.
fn lexical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// A version Masterminds' `semver.NewVersion` takes: a pin, not a range.
fn is_version(text: &str) -> bool {
    let t = text.strip_prefix('v').unwrap_or(text);
    let core = t.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    !core.is_empty()
        && parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// A semver range (`1.2.*`, `^1.2`, `>=1.0 <2.0`, `*`): it floats to the newest match.
fn is_range(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() || is_version(t) {
        return false;
    }
    let operators = t.starts_with(['^', '~', '>', '<', '=', '!']) || t.contains("||");
    let wildcard = t
        .trim_start_matches('v')
        .split('.')
        .all(|p| p == "*" || p == "x" || p == "X" || p.chars().all(|c| c.is_ascii_digit()))
        && t.contains(['*', 'x', 'X']);
    operators || wildcard || t.contains(" - ")
}

fn is_sha(text: &str) -> bool {
    (7..=40).contains(&text.len()) && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// A note on what `targetRevision` makes Argo CD read, when it is not simply what is on disk.
fn revision_note(source: &AppSource, root: Option<&Path>, this_repo: bool) -> Option<String> {
    let rev = source.target_revision.trim();
    if let Some(chart) = &source.chart {
        return is_range(rev).then(|| format!(
            "chart `{chart}` floats: `targetRevision: {rev}` is a version range, so each refresh syncs the newest chart version that matches it, not a fixed one"
        ));
    }
    if !this_repo {
        return None;
    }
    let root = root?;
    let snapshot = read_repo(root).ok();
    let branch = snapshot.as_ref().and_then(|s| s.branch.clone());
    let local_state = || {
        let mut parts = Vec::new();
        if let Some(s) = &snapshot {
            if !s.dirty.is_empty() {
                parts.push(format!(
                    "{} changed or new file(s) here are not committed",
                    s.dirty.len()
                ));
            }
            if let Some(up) = &s.upstream
                && up.ahead > 0
            {
                parts.push(format!("{} commit(s) are not pushed", up.ahead));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" Right now {}.", parts.join(" and "))
        }
    };
    if rev.is_empty() || rev == "HEAD" {
        let written = if rev.is_empty() {
            "No `targetRevision` (the same as `HEAD`)"
        } else {
            "`targetRevision: HEAD`"
        };
        return Some(format!(
            "{written} floats: Argo CD syncs the newest commit of the remote's default branch. This plan reads the files on disk, which Argo CD sees only once they are committed and pushed there.{}",
            local_state()
        ));
    }
    if snapshot.as_ref().is_some_and(|s| s.head.is_none()) {
        return Some(format!(
            "`targetRevision: {rev}`: this clone has no commit yet, so Argo CD has nothing to sync until one is pushed"
        ));
    }
    if is_sha(rev) {
        let head = snapshot
            .as_ref()
            .and_then(|s| s.head.as_ref())
            .map(|h| h.sha.clone())
            .unwrap_or_default();
        return (!head.starts_with(rev)).then(|| format!(
            "`targetRevision: {rev}` pins a commit: Argo CD syncs that commit, not what this folder holds now (HEAD here is {})",
            if head.is_empty() { "unknown".to_string() } else { head.chars().take(7).collect() }
        ));
    }
    if is_range(rev) {
        return Some(format!(
            "`targetRevision: {rev}` floats: a semver range, so Argo CD syncs the newest tag that matches it, not these files"
        ));
    }
    let kind = RepoReader::open(root)
        .map(|r| r.revision_kind(rev))
        .unwrap_or(RevisionKind::Unknown);
    match kind {
        RevisionKind::Tag => Some(format!(
            "`targetRevision: {rev}` pins a tag: Argo CD syncs the commit it names, not what this folder holds now"
        )),
        RevisionKind::Branch => {
            let elsewhere = branch.as_deref().filter(|b| *b != rev).map(|b| format!(
                " You are on branch `{b}` here: what this plan shows reaches Argo CD only once it is in `{rev}`."
            ));
            Some(format!(
                "`targetRevision: {rev}` floats with branch `{rev}`: Argo CD syncs its newest pushed commit.{}",
                elsewhere.unwrap_or_else(local_state)
            ))
        }
        RevisionKind::Unknown => Some(format!(
            "`targetRevision: {rev}` is neither a branch nor a tag this clone knows (as of its last fetch): unless the remote has it, Argo CD fails with `unable to resolve '{rev}' to a commit SHA`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_float_and_versions_pin_as_masterminds_semver_reads_them() {
        for (text, range) in [
            ("1.2.3", false),
            ("v1.2", false),
            ("1.2.3-rc.1", false),
            ("*", true),
            ("1.2.*", true),
            ("1.x", true),
            ("^1.2", true),
            ("~1.2.0", true),
            (">=1.0.0 <2.0.0", true),
            ("1.0 - 1.4", true),
            ("main", false),
            ("feature-x", false),
            ("", false),
        ] {
            assert_eq!(is_range(text), range, "{text}");
        }
    }

    #[test]
    fn paths_are_taken_apart_without_the_disk() {
        assert_eq!(
            lexical(Path::new("/r/a/../b/./c")),
            Some(PathBuf::from("/r/b/c"))
        );
        assert_eq!(lexical(Path::new("/../x")), None);
    }
}
