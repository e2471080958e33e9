//! Reading course files, from the binary or from `--course-dir`: bounded, UTF-8, and never
//! outside the course folder.

use std::path::PathBuf;

use include_dir::{Dir, include_dir};

use super::{Course, CourseSource};
use crate::error::Error;
use crate::paths::{InsideError, ReadError, ReadTextError};

static EMBEDDED_MODULES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/modules");
static EMBEDDED_EXPECTED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/expected");

impl Course {
    pub(super) fn module_dirs(&self) -> Result<Vec<String>, Error> {
        match &self.source {
            CourseSource::Embedded => Ok(EMBEDDED_MODULES
                .dirs()
                .filter_map(|d| d.path().file_name()?.to_str().map(str::to_string))
                .collect()),
            CourseSource::Disk(root) => {
                let dir = root.join("modules");
                let entries = std::fs::read_dir(&dir).map_err(|source| Error::CourseIo {
                    path: dir.clone(),
                    source,
                })?;
                let mut names = Vec::new();
                for entry in entries.flatten() {
                    if entry.path().is_dir()
                        && let Some(name) = entry.file_name().to_str()
                    {
                        names.push(name.to_string());
                    }
                }
                Ok(names)
            }
        }
    }

    /// Read a course file by its path relative to the course root (`modules/…`, `expected/…`).
    /// Returns the name to show in messages and the text.
    pub fn read_file(&self, relative: &str) -> Result<(String, String), Error> {
        if let Err(why) = crate::paths::relative_inside(relative) {
            return Err(Error::Usage(format!(
                "`{relative}` leaves the course folder ({}); course paths are relative to it and may not contain `..`",
                why.reason()
            )));
        }
        match &self.source {
            CourseSource::Embedded => {
                let (dir, rest) = match relative.split_once('/') {
                    Some(("modules", rest)) => (&EMBEDDED_MODULES, rest),
                    Some(("expected", rest)) => (&EMBEDDED_EXPECTED, rest),
                    _ => {
                        return Err(Error::Usage(format!(
                            "`{relative}` is not under modules/ or expected/"
                        )));
                    }
                };
                let file = dir.get_file(rest).ok_or_else(|| Error::CourseIo {
                    path: PathBuf::from(format!("(built-in course)/{relative}")),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                })?;
                let text = crate::paths::text_of(file.contents().to_vec())
                    .map_err(|e| not_text(relative, &e))?;
                Ok((relative.to_string(), text))
            }
            CourseSource::Disk(root) => {
                let path = root.join(relative);
                let shown = path.display().to_string();
                // A symlink in the course folder may not lead out of it either.
                let real = match crate::paths::resolve_inside(root, relative) {
                    Ok(real) => real,
                    Err(InsideError::Escapes) => {
                        return Err(Error::CourseContent {
                            file: shown,
                            message: "is a symlink that leads out of the course folder; labcheck reads course files only inside it".to_string(),
                        });
                    }
                    Err(InsideError::Missing(source) | InsideError::Io(source)) => {
                        return Err(Error::CourseIo { path, source });
                    }
                    Err(InsideError::Words(why)) => {
                        return Err(Error::Usage(format!(
                            "`{relative}` leaves the course folder ({})",
                            why.reason()
                        )));
                    }
                };
                let text =
                    crate::paths::read_regular_text(&real, MAX_COURSE_FILE_BYTES).map_err(|e| {
                        match e {
                            ReadTextError::Read(ReadError::Io(source)) => Error::CourseIo {
                                path: path.clone(),
                                source,
                            },
                            other => not_text(&shown, &other),
                        }
                    })?;
                Ok((shown, text))
            }
        }
    }

    /// Every file under the course folder `relative` (e.g. `modules/m/lab/x`), as
    /// paths relative to it, sorted; none when the folder does not exist.
    pub fn files_under(&self, relative: &str) -> Result<Vec<String>, Error> {
        let mut files = Vec::new();
        match &self.source {
            CourseSource::Embedded => {
                let (dir, rest) = match relative.split_once('/') {
                    Some(("modules", rest)) => (&EMBEDDED_MODULES, rest),
                    Some(("expected", rest)) => (&EMBEDDED_EXPECTED, rest),
                    _ => return Ok(files),
                };
                let Some(found) = dir.get_dir(rest) else {
                    return Ok(files);
                };
                let mut stack = vec![found];
                while let Some(d) = stack.pop() {
                    for file in d.files() {
                        if let Ok(rel) = file.path().strip_prefix(found.path()) {
                            files.push(rel.to_string_lossy().replace('\\', "/"));
                        }
                    }
                    stack.extend(d.dirs());
                }
            }
            CourseSource::Disk(root) => {
                let top = root.join(relative);
                let mut stack = vec![top.clone()];
                while let Some(d) = stack.pop() {
                    let Ok(entries) = std::fs::read_dir(&d) else {
                        continue;
                    };
                    for entry in entries.flatten() {
                        let path = entry.path();
                        if path.is_dir() {
                            stack.push(path);
                        } else if let Ok(rel) = path.strip_prefix(&top) {
                            files.push(rel.to_string_lossy().replace('\\', "/"));
                        }
                    }
                }
            }
        }
        files.sort();
        Ok(files)
    }

    /// A reference file under `expected/<track>/<module>/` (see [`ReferenceFiles`](crate::checks::context::ReferenceFiles)).
    pub fn expected_file(
        &self,
        track: &str,
        module: &str,
        relative: &str,
    ) -> Result<(String, String), Error> {
        self.read_file(&format!("expected/{track}/{module}/{relative}"))
    }
}

impl crate::checks::context::ReferenceFiles for Course {
    fn reference_file(
        &self,
        track: &str,
        module: &str,
        relative: &str,
    ) -> Result<(String, String), String> {
        self.expected_file(track, module, relative)
            .map_err(|error| error.to_string())
    }
}

/// The most labcheck reads of one course file; a check file is a few kilobytes.
pub const MAX_COURSE_FILE_BYTES: u64 = 5 * 1024 * 1024;

fn not_text(file: &str, error: &ReadTextError) -> Error {
    match error {
        ReadTextError::NotUtf8 { line, column, byte } => Error::CourseFile {
            file: file.to_string(),
            line: *line,
            column: *column,
            message: format!(
                "the byte 0x{byte:02x} is not UTF-8 text; save the file as UTF-8 (your editor's encoding setting)"
            ),
        },
        other => Error::CourseContent {
            file: file.to_string(),
            message: other.to_string(),
        },
    }
}
