//! What the `origin` remote of a work repository holds: its URL, its default branch, and
//! which of its branches contain a commit.

use git2::Oid;

use super::error::GitProbeError;
use super::reader::RepoReader;

/// What the `origin` remote says about a commit, for "pushed where Argo CD looks".
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OriginView {
    /// `remote.origin.url`.
    pub url: Option<String>,
    /// The remote's default branch (`refs/remotes/origin/HEAD`), when the clone recorded it.
    pub default_branch: Option<String>,
    /// Every remote-tracking branch of `origin`, shown as `<name>`.
    pub branches: Vec<String>,
    /// The remote-tracking branches (`origin/<name>`, shown as `<name>`) whose tip is the commit
    /// or has it in its history.
    pub containing: Vec<String>,
}

/// Read `origin`'s URL, default branch and the remote branches that contain `sha`. Only reads.
pub fn origin_view(reader: &RepoReader, sha: &str) -> Result<OriginView, GitProbeError> {
    let repo = &reader.repo;
    let err = GitProbeError::git(&reader.path);
    let url = reader.origin().flatten().map(without_credentials);
    let default_branch = repo
        .find_reference("refs/remotes/origin/HEAD")
        .ok()
        .and_then(|r| r.symbolic_target().ok().flatten().map(|t| t.to_string()))
        .and_then(|t| t.strip_prefix("refs/remotes/origin/").map(str::to_string));
    let commit = Oid::from_str(sha).map_err(&err)?;
    let mut containing = Vec::new();
    let mut branches = Vec::new();
    for reference in repo
        .references_glob("refs/remotes/origin/*")
        .map_err(&err)?
    {
        let Ok(reference) = reference else { continue };
        let Some(name) = reference
            .name()
            .ok()
            .and_then(|n| n.strip_prefix("refs/remotes/origin/"))
            .filter(|n| *n != "HEAD")
            .map(str::to_string)
        else {
            continue;
        };
        let Ok(tip) = reference.peel_to_commit().map(|c| c.id()) else {
            continue;
        };
        branches.push(name.clone());
        if tip == commit || repo.graph_descendant_of(tip, commit).unwrap_or(false) {
            containing.push(name);
        }
    }
    containing.sort();
    branches.sort();
    Ok(OriginView {
        url,
        default_branch,
        branches,
        containing,
    })
}

/// `url` without a credential in it: an http(s) URL's user part (`https://TOKEN@host/…`,
/// `https://user:password@host/…`) is where a token goes, so it is dropped; another scheme keeps
/// its user name but never a password. Which repo a URL names does not depend on either (see
/// `repo_url::normalise`), and no report, bundle or recording may hold a credential.
pub fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // scp-like `git@host:team/repo`: a user name, never a password.
        return url.to_string();
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let Some((user, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    let scheme_lower = scheme.to_ascii_lowercase();
    if scheme_lower == "http" || scheme_lower == "https" {
        return format!("{scheme}://{host}{path}");
    }
    let name = user.split(':').next().unwrap_or_default();
    format!("{scheme}://{name}@{host}{path}")
}

#[cfg(test)]
mod tests {
    use super::without_credentials;

    #[test]
    fn a_token_or_password_in_the_origin_url_never_leaves_the_probe() {
        for (url, kept) in [
            (
                "https://ghp_secret123@github.com/team/checkout-config.git",
                "https://github.com/team/checkout-config.git",
            ),
            (
                "https://learner:s3cret@git.example/team/repo",
                "https://git.example/team/repo",
            ),
            (
                "ssh://git:s3cret@git.example:22/team/repo.git",
                "ssh://git@git.example:22/team/repo.git",
            ),
            (
                "git@github.com:team/repo.git",
                "git@github.com:team/repo.git",
            ),
            (
                "https://github.com/team/repo",
                "https://github.com/team/repo",
            ),
            (
                "../remotes/checkout-config.git",
                "../remotes/checkout-config.git",
            ),
        ] {
            assert_eq!(without_credentials(url), kept, "{url}");
        }
    }
}
