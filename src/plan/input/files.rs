//! Where `labcheck plan`'s input lies: files and stdin read as text, paths shown from where the
//! user stands, the git repository around a folder and the URLs its clone names (each as
//! [`crate::repo_url`] keys it). Below the rest of `plan::input`, which all reads through it.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::probe::files::{MAX_FILE_BYTES, PathShower};
use crate::probe::manifests::read_manifests;

/// The files of `path` (a file, a folder's files, or `-` for stdin, once) as (shown, text).
pub fn read_path(path: &str, stdin_read: &mut bool) -> Result<Vec<(String, String)>, Error> {
    if path == "-" {
        if std::mem::replace(stdin_read, true) {
            return Err(Error::Usage(
                "`-` (stdin) can be given only once".to_string(),
            ));
        }
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Usage(format!("cannot read stdin: {e}")))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(Error::Usage(format!(
                "stdin holds more than {MAX_FILE_BYTES} bytes; labcheck plans up to that much"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Usage("stdin is not UTF-8 text".to_string()))?;
        return Ok(vec![("<stdin>".to_string(), text)]);
    }
    let given = PathBuf::from(path);
    if !given.exists() {
        return Err(Error::Usage(format!(
            "{path} does not exist; give a manifest file, a folder of manifests, or - for stdin"
        )));
    }
    let shower = PathShower::new(None);
    let (root, relative) = if given.is_dir() {
        (given.clone(), String::new())
    } else {
        let parent = match given.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = given
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (parent, name)
    };
    let found =
        read_manifests(&root, &relative, &shower).map_err(|e| Error::Usage(format!("{e}")))?;
    if found.is_empty() {
        return Err(Error::Usage(format!(
            "{path} holds no .yaml, .yml or .json file"
        )));
    }
    Ok(found
        .into_iter()
        .map(|(rel, text)| (shown(&root, &rel, given.is_dir()), text))
        .collect())
}

/// A file found under `root` as shown: below the folder given, or beside the file given.
pub fn shown(root: &Path, relative: &str, from_dir: bool) -> String {
    if from_dir {
        root.join(relative).display().to_string()
    } else if root == Path::new(".") {
        relative.to_string()
    } else {
        root.join(relative).display().to_string()
    }
}

/// The top of the git work tree `path` is in, if it is in one.
pub fn git_root(path: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(path).ok()?;
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// `path` as shown to someone standing in the current folder: relative when it is below it (or
/// near it), else whole.
pub fn shown_from_cwd(path: &Path) -> String {
    let (Ok(real), Ok(cwd)) = (
        std::fs::canonicalize(path),
        std::env::current_dir().and_then(std::fs::canonicalize),
    ) else {
        return path.display().to_string();
    };
    let common = real
        .components()
        .zip(cwd.components())
        .take_while(|(a, b)| a == b)
        .count();
    let up = cwd.components().count() - common;
    // Above the cwd's parent's parent, a whole path reads better than a row of `../`.
    if common <= 1 || up > 2 {
        return real.display().to_string();
    }
    let mut shown = PathBuf::new();
    for _ in 0..up {
        shown.push("..");
    }
    for part in real.components().skip(common) {
        shown.push(part);
    }
    if shown.as_os_str().is_empty() {
        ".".to_string()
    } else {
        shown.display().to_string()
    }
}

/// The remote URLs a work repo names in `.git/config` (read as text; nothing is run).
pub fn remote_urls(root: &Path) -> Vec<String> {
    let config = root.join(".git").join("config");
    let text = crate::paths::read_regular_text(&config, crate::probe::files::MAX_FILE_BYTES)
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("url"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .map(crate::repo_url::normalise)
        .collect()
}
