//! One key for a repository however its URL is written. `labcheck plan` asks whether an
//! Application's source is the clone at hand, the revision checks which of an Application's
//! sources is a learner's work repo: both ask "is this the same repository?", so both read a URL
//! here, and an URL one of them takes for the repo the other does too.

/// `https://git.example/Team/Repo.git/`, `git@git.example:team/repo`,
/// `ssh://git@git.example:22/team/repo.git` all become `git.example/team/repo`: no scheme, no
/// user, no `.git`, no trailing slash, one case. Git's forms (`git help fetch`, "GIT URLS"):
/// `scheme://[user@]host[:port]/path` for ssh, git, http(s) and file, the scp-like
/// `[user@]host:path` (only when no `/` comes before the first `:`, as git reads it), and a local
/// path. The port of an ssh URL is dropped, since the scp-like form of the same repository cannot
/// carry one; an http(s) port stays unless it is the scheme's default, since a server on another
/// port is another server (git://'s 9418 is its default).
pub fn normalise(url: &str) -> String {
    let url = url.trim();
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => (String::new(), url),
    };
    let rest = match rest.split_once('@') {
        Some((user, host)) if !user.contains('/') => host,
        _ => rest,
    };
    let mut rest = rest.to_string();
    if scheme.is_empty() {
        // scp-like `host:team/repo`; a local path has a `/` before any `:`, or no `:` at all.
        if let Some((host, path)) = rest.split_once(':')
            && !host.contains('/')
        {
            rest = format!("{host}/{path}");
        }
    } else if let Some((host, path)) = rest.split_once('/')
        && let Some((name, port)) = host.rsplit_once(':')
        && !port.is_empty()
        && port.chars().all(|c| c.is_ascii_digit())
        && matches!(
            (scheme.as_str(), port),
            ("ssh" | "git+ssh" | "ssh+git", _)
                | ("https", "443")
                | ("http", "80")
                | ("git", "9418")
        )
    {
        rest = format!("{name}/{path}");
    }
    let trimmed = rest.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix(".git").unwrap_or(trimmed);
    trimmed.trim_end_matches('/').to_ascii_lowercase()
}

/// The last path segment of a repo URL (`checkout-config`).
pub fn name(url: &str) -> String {
    normalise(url)
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::normalise;

    /// Every form git accepts for one repository, and what it is read as.
    const FORMS: &[(&str, &str)] = &[
        // scp-like, with and without a user and `.git`.
        (
            "git@git.course.local:team/repo.git",
            "git.course.local/team/repo",
        ),
        ("git.course.local:team/repo", "git.course.local/team/repo"),
        // ssh://, with a user, a port (any: the scp-like form has none), `.git` and a slash.
        (
            "ssh://git@git.course.local/team/repo.git",
            "git.course.local/team/repo",
        ),
        (
            "ssh://git@git.course.local:22/team/repo.git",
            "git.course.local/team/repo",
        ),
        (
            "ssh://git@git.course.local:2222/team/repo",
            "git.course.local/team/repo",
        ),
        (
            "git+ssh://git@git.course.local/team/repo",
            "git.course.local/team/repo",
        ),
        ("ssh://git@[::1]:22/team/repo", "[::1]/team/repo"),
        // http(s), with credentials, a trailing slash, the default port, upper case.
        (
            "https://git.course.local/team/repo",
            "git.course.local/team/repo",
        ),
        (
            "https://git.course.local/team/repo.git/",
            "git.course.local/team/repo",
        ),
        (
            "https://GIT.Course.Local/team/repo",
            "git.course.local/team/repo",
        ),
        (
            "HTTPS://git.course.local/team/repo",
            "git.course.local/team/repo",
        ),
        (
            "https://ana:token@git.course.local/team/repo",
            "git.course.local/team/repo",
        ),
        (
            "https://git.course.local:443/team/repo",
            "git.course.local/team/repo",
        ),
        (
            "http://git.course.local/team/repo.git",
            "git.course.local/team/repo",
        ),
        (
            "http://git.course.local:80/team/repo",
            "git.course.local/team/repo",
        ),
        // Another port over http is another server.
        (
            "http://localhost:3000/team/repo.git",
            "localhost:3000/team/repo",
        ),
        (
            "https://git.course.local:8443/team/repo",
            "git.course.local:8443/team/repo",
        ),
        // git://.
        (
            "git://git.course.local/team/repo.git",
            "git.course.local/team/repo",
        ),
        (
            "git://git.course.local:9418/team/repo",
            "git.course.local/team/repo",
        ),
        // file:// and a local path are the same folder.
        ("file:///srv/git/repo.git", "/srv/git/repo"),
        ("/srv/git/repo.git", "/srv/git/repo"),
        ("/srv/git/repo/", "/srv/git/repo"),
        ("./repo", "./repo"),
        // A `/` before the first `:` makes a local path, never scp-like.
        ("./a:b/repo", "./a:b/repo"),
        // White space around it, as pasted.
        (
            "  https://git.course.local/team/repo  ",
            "git.course.local/team/repo",
        ),
    ];

    #[test]
    fn every_form_git_accepts_reads_as_one_key() {
        for (url, key) in FORMS {
            assert_eq!(normalise(url), *key, "{url}");
        }
    }

    #[test]
    fn another_repository_is_another_key() {
        assert_ne!(
            normalise("https://git.course.local/team/repo"),
            normalise("https://git.course.local/team/other")
        );
        assert_ne!(
            normalise("https://git.course.local/team/repo"),
            normalise("https://git.other.local/team/repo")
        );
    }
}
