//! The one place that decides whether a path stays inside its root, and the one way labcheck
//! opens a file it only reads (a regular file, never a FIFO or a device that could block it).
//!
//! Every course path (a step in module.yaml, a reference, a repo's `path:`, a fixture) and every
//! repo-relative path a check names goes through [`relative_inside`] when it is read from a file,
//! and through [`resolve_inside`] when it is opened, so symlinks cannot lead out either.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Why a relative path is refused, in words for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaves {
    Empty,
    Absolute,
    ParentDir,
    /// A NUL byte or a Windows drive (`C:`): not a path inside anything.
    Odd,
}

impl Leaves {
    /// What is wrong, as a clause ("it starts with `/`").
    pub fn reason(self) -> &'static str {
        match self {
            Leaves::Empty => "it is empty",
            Leaves::Absolute => "it is absolute",
            Leaves::ParentDir => "it goes up with `..`",
            Leaves::Odd => "it holds a NUL byte or a drive letter",
        }
    }
}

/// The user's home folder (`$HOME`): the one place labcheck reads it. `~/work`, `~/.kube/config`,
/// the progress folder and how paths are shown all start here. An empty `HOME` is no home (a
/// relative `work` folder would be wherever labcheck happened to run).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// A path written relative to a root (`/` or `\` between parts) stays inside that root by its
/// words alone: not empty, not absolute, no `..` part, no NUL, no drive letter. Backslashes count
/// as separators so a course written on Windows is read the same everywhere.
pub fn relative_inside(value: &str) -> Result<(), Leaves> {
    if value.is_empty() {
        return Err(Leaves::Empty);
    }
    if value.starts_with(['/', '\\']) {
        return Err(Leaves::Absolute);
    }
    if value.contains('\0') || value.as_bytes().get(1) == Some(&b':') {
        return Err(Leaves::Odd);
    }
    if value.split(['/', '\\']).any(|part| part == "..") {
        return Err(Leaves::ParentDir);
    }
    Ok(())
}

/// Why a path could not be resolved inside its root.
#[derive(Debug)]
pub enum InsideError {
    /// Refused by its words ([`relative_inside`]).
    Words(Leaves),
    /// It exists, but a symlink leads out of the root.
    Escapes,
    /// It (or the root) does not exist: the operating system's words.
    Missing(std::io::Error),
    /// Something else the operating system said.
    Io(std::io::Error),
}

/// `root/relative` with every symlink resolved, refused unless it is still under `root`
/// (itself resolved). The file must exist.
pub fn resolve_inside(root: &Path, relative: &str) -> Result<PathBuf, InsideError> {
    relative_inside(relative).map_err(InsideError::Words)?;
    let real_root = canonical(root)?;
    let real = canonical(&root.join(relative))?;
    if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(InsideError::Escapes)
    }
}

fn canonical(path: &Path) -> Result<PathBuf, InsideError> {
    std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => InsideError::Missing(e),
        _ => InsideError::Io(e),
    })
}

/// `path` made absolute (against the current folder) with `.` and `..` folded by their words,
/// for comparing a path that may not exist yet.
pub fn lexical_absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A FIFO, socket, device or folder where a file should be (reading it could block forever).
    #[error("is {}", not_regular(.0))]
    NotRegular(&'static str),
    #[error("is {size} bytes; labcheck reads files up to {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The sentence for a path that is `kind` (a folder, a named pipe, …) where labcheck reads a
/// file: what it is, what labcheck expected, what to do.
pub fn not_regular(kind: &str) -> String {
    if kind == "a folder" {
        "a folder, not a regular file: labcheck expected one file here; name a file inside the folder, or put the file itself at this path".to_string()
    } else {
        format!(
            "{kind}, not a regular file: labcheck expected a file here and reads only regular files (reading {kind} could wait for ever); put the file itself at this path"
        )
    }
}

/// Every kind [`kind_of`] names (a replayed error names one of these).
pub const KINDS: &[&str] = &[
    "a named pipe (FIFO)",
    "a socket",
    "a device",
    "a folder",
    "a file",
    "not a file",
];

/// What kind of thing a file type is, for a message.
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_file() {
        "a file"
    } else {
        "not a file"
    }
}

/// Read a regular file (following symlinks) up to `limit` bytes. The type is checked before
/// opening, the open does not block (a FIFO with no writer would), and the type is checked again on
/// the open handle, so a file swapped for a FIFO in between is refused too.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let before = std::fs::metadata(path)?;
    if !before.is_file() {
        return Err(ReadError::NotRegular(kind_of(before.file_type())));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(ReadError::NotRegular(kind_of(opened.file_type())));
    }
    if opened.len() > limit {
        return Err(ReadError::TooLarge {
            size: opened.len(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    // The file may grow between the size check and the read: never read more than the limit + 1.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text; a BOM at the start is dropped (editors on Windows write one).
pub fn read_regular_text(path: &Path, limit: u64) -> Result<String, ReadTextError> {
    let bytes = read_regular(path, limit)?;
    text_of(bytes)
}

/// Why a text file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadTextError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("is not UTF-8 text (first bad byte on line {line})")]
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
    },
}

/// Bytes as UTF-8 text without a leading BOM, or the line of the first bad byte.
pub fn text_of(bytes: Vec<u8>) -> Result<String, ReadTextError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(strip_bom(text)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let before = &bytes[..valid];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            Err(ReadTextError::NotUtf8 {
                line,
                column,
                byte: bytes.get(valid).copied().unwrap_or(0),
            })
        }
    }
}

/// Drop a UTF-8 byte order mark at the start.
pub fn strip_bom(text: String) -> String {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// [`relative_inside`] for a field of a course file: the error names the field and says how to
/// write it instead.
pub fn inside_field(field: &str, value: &str) -> Result<(), String> {
    relative_inside(value).map_err(|why| {
        format!(
            "`{field}: {value}` leaves the folder it is relative to ({}); write a path inside it, without `..` or a leading `/`",
            why.reason()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_pass_and_every_way_out_is_named() {
        for inside in [
            "a", "a/b.yaml", "./a", "a/./b", "a..b", "...", "~/x", "a\\b",
        ] {
            assert_eq!(relative_inside(inside), Ok(()), "{inside}");
        }
        let cases = [
            ("", Leaves::Empty),
            ("/etc/passwd", Leaves::Absolute),
            ("\\\\server\\share", Leaves::Absolute),
            ("..", Leaves::ParentDir),
            ("../x", Leaves::ParentDir),
            ("a/../../x", Leaves::ParentDir),
            ("a\\..\\..\\x", Leaves::ParentDir),
            ("a/..", Leaves::ParentDir),
            ("C:/Windows", Leaves::Odd),
            ("c:x", Leaves::Odd),
            ("a\0b", Leaves::Odd),
        ];
        for (value, why) in cases {
            assert_eq!(relative_inside(value), Err(why), "{value:?}");
        }
    }

    #[test]
    fn a_symlink_out_of_the_root_is_refused_and_one_inside_is_followed() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("sub/in.yaml"), "a: 1").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("out.yaml"), "s: 1").unwrap_or_else(|e| panic!("{e}"));
        #[cfg(unix)]
        {
            let link = |to: &Path, at: &str| {
                std::os::unix::fs::symlink(to, root.join(at)).unwrap_or_else(|e| panic!("{e}"))
            };
            link(&dir.path().join("out.yaml"), "out-link.yaml");
            link(&root.join("sub/in.yaml"), "in-link.yaml");
            link(dir.path(), "up");
            assert!(matches!(
                resolve_inside(&root, "out-link.yaml"),
                Err(InsideError::Escapes)
            ));
            assert!(matches!(
                resolve_inside(&root, "up/out.yaml"),
                Err(InsideError::Escapes)
            ));
            assert!(resolve_inside(&root, "in-link.yaml").is_ok());
        }
        assert!(resolve_inside(&root, "sub/in.yaml").is_ok());
        assert!(matches!(
            resolve_inside(&root, "../out.yaml"),
            Err(InsideError::Words(Leaves::ParentDir))
        ));
        assert!(matches!(
            resolve_inside(&root, "nope.yaml"),
            Err(InsideError::Missing(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_a_device_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(matches!(
                read_regular(&fifo, 10),
                Err(ReadError::NotRegular("a named pipe (FIFO)"))
            ));
        }
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular("a device"))
        ));
        assert!(matches!(
            read_regular(dir.path(), 10),
            Err(ReadError::NotRegular("a folder"))
        ));
    }

    #[test]
    fn text_drops_a_bom_and_names_the_line_of_a_bad_byte() {
        assert_eq!(
            text_of(b"\xef\xbb\xbfa: 1\n".to_vec()).ok().as_deref(),
            Some("a: 1\n")
        );
        assert!(matches!(
            text_of(b"a: 1\nb: \xff\n".to_vec()),
            Err(ReadTextError::NotUtf8 {
                line: 2,
                column: 4,
                byte: 0xff
            })
        ));
    }
}
