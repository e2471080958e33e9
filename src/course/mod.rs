//! The course: modules, their steps and the reference files, embedded in the binary or read from
//! `--course-dir`.

pub mod fixtures;
pub mod placeholders;
pub mod schema;
pub mod suggest;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use include_dir::{Dir, include_dir};

use crate::error::Error;
use crate::paths::{InsideError, ReadError, ReadTextError};
use crate::quiz::Quiz;
use schema::{AfterSpec, CheckSpec, FORMAT_VERSION, ModuleManifest, StepFile};

static EMBEDDED_MODULES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/modules");
static EMBEDDED_EXPECTED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/expected");

/// Where the course files come from.
#[derive(Debug, Clone)]
pub enum CourseSource {
    /// The course compiled into this binary.
    Embedded,
    /// A course folder on disk (holding `modules/` and `expected/`).
    Disk(PathBuf),
}

/// A loaded course.
#[derive(Debug, Clone)]
pub struct Course {
    source: CourseSource,
    pub modules: Vec<Module>,
}

/// A module with its steps, validated.
#[derive(Debug, Clone)]
pub struct Module {
    pub manifest: ModuleManifest,
    pub steps: Vec<Step>,
    /// The module's quiz (`quiz:` in module.yaml), if it has one.
    pub quiz: Option<Quiz>,
}

/// A runnable unit: a step, or one stage of a break-it exercise (named `exercise/stage`).
#[derive(Debug, Clone)]
pub struct Step {
    pub name: String,
    pub title: String,
    pub summary: Option<String>,
    /// The file it came from, for messages.
    pub file: String,
    /// Later steps change what this step looks at (see `transient:` in docs/check-files.md).
    pub transient: bool,
    pub checks: Vec<CheckSpec>,
    /// For a stage that counts only after an earlier one (break-it's `fix` after `break`).
    pub after: Option<AfterSpec>,
}

impl Course {
    /// The course bundled with this binary.
    pub fn embedded() -> Result<Course, Error> {
        Self::load(CourseSource::Embedded)
    }

    /// A course folder on disk.
    pub fn from_dir(dir: &Path) -> Result<Course, Error> {
        if !dir.join("modules").is_dir() {
            return Err(Error::Usage(format!(
                "{} is not a course folder: it has no modules/ folder. Point --course-dir at the folder that holds modules/ and expected/",
                dir.display()
            )));
        }
        Self::load(CourseSource::Disk(dir.to_path_buf()))
    }

    fn load(source: CourseSource) -> Result<Course, Error> {
        let mut course = Course {
            source,
            modules: Vec::new(),
        };
        let mut names = course.module_dirs()?;
        names.sort();
        for name in names {
            let module = course.load_module(&name)?;
            course.modules.push(module);
        }
        Ok(course)
    }

    /// Where the course comes from.
    pub fn source(&self) -> &CourseSource {
        &self.source
    }

    fn module_dirs(&self) -> Result<Vec<String>, Error> {
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

    /// Every file under the course folder `relative` (e.g. `modules/m/fixtures/repos/x`), as
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

    fn load_module(&self, dir_name: &str) -> Result<Module, Error> {
        let (file, text) = self.read_file(&format!("modules/{dir_name}/module.yaml"))?;
        let manifest: ModuleManifest = parse_yaml(&file, &text)?;
        check_format(&file, &manifest.format)?;
        if manifest.module != dir_name {
            return Err(Error::CourseContent {
                file,
                message: format!(
                    "says `module: {}` but lives in modules/{dir_name}/; make them the same",
                    manifest.module
                ),
            });
        }
        if !manifest.tracks.available.contains(&manifest.tracks.default) {
            return Err(Error::CourseContent {
                file,
                message: format!(
                    "default track `{}` is not among the available tracks ({})",
                    manifest.tracks.default,
                    manifest.tracks.available.join(", ")
                ),
            });
        }
        let mut steps = Vec::new();
        for step_name in &manifest.steps {
            let (file, text) = self.read_file(&format!("modules/{dir_name}/{step_name}.yaml"))?;
            let step_file: StepFile = parse_yaml(&file, &text)?;
            check_format(&file, &step_file.format)?;
            match (step_file.checks.is_empty(), step_file.stages.is_empty()) {
                (false, true) => steps.push(Step {
                    name: step_name.clone(),
                    title: step_file.title,
                    summary: step_file.summary,
                    file: file.clone(),
                    transient: step_file.transient,
                    checks: step_file.checks,
                    after: None,
                }),
                (true, false) => {
                    for stage in step_file.stages {
                        steps.push(Step {
                            name: format!("{step_name}/{}", stage.stage),
                            title: format!("{}: {}", step_file.title, stage.title),
                            summary: stage.summary,
                            file: file.clone(),
                            transient: stage.transient,
                            checks: stage.checks,
                            after: stage.after,
                        });
                    }
                }
                _ => {
                    return Err(Error::CourseContent {
                        file,
                        message: "a step file has either `checks:` (a step) or `stages:` (a break-it exercise), exactly one of them".to_string(),
                    });
                }
            }
        }
        let quiz = match &manifest.quiz {
            Some(name) => {
                let (file, text) = self.read_file(&format!("modules/{dir_name}/{name}"))?;
                Some(Quiz::parse(&file, &text)?)
            }
            None => None,
        };
        let module = Module {
            manifest,
            steps,
            quiz,
        };
        module.validate()?;
        Ok(module)
    }

    /// The module named `name`.
    pub fn module(&self, name: &str) -> Result<&Module, Error> {
        self.modules
            .iter()
            .find(|m| m.manifest.module == name)
            .ok_or_else(|| Error::UnknownModule {
                module: name.to_string(),
                suggestion: suggest::did_you_mean(
                    name,
                    self.modules.iter().map(|m| m.manifest.module.as_str()),
                ),
                available: self
                    .modules
                    .iter()
                    .map(|m| m.manifest.module.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
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

impl Module {
    /// What checks need to know of this module; `argocd_namespace` overrides the module's.
    pub fn check_facts(
        &self,
        course: &Arc<Course>,
        argocd_namespace: Option<String>,
    ) -> crate::checks::context::ModuleFacts {
        crate::checks::context::ModuleFacts {
            name: self.manifest.module.clone(),
            repos: self
                .manifest
                .repos
                .iter()
                .map(|repo| crate::checks::context::WorkRepo {
                    name: repo.name.clone(),
                    dir: repo.dir_name().to_string(),
                    get: repo.get.clone(),
                })
                .collect(),
            argocd_namespace: argocd_namespace
                .unwrap_or_else(|| self.manifest.argocd.namespace.clone()),
            references: course.clone(),
        }
    }

    /// The step (or `exercise/stage`) named `name`.
    pub fn step(&self, name: &str) -> Result<&Step, Error> {
        self.steps
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| Error::UnknownStep {
                module: self.manifest.module.clone(),
                step: name.to_string(),
                suggestion: suggest::did_you_mean(name, self.select_names()),
                available: self.step_names().join(", "),
            })
    }

    /// Every name a run can select: steps, stages and exercises, and the quiz.
    fn select_names(&self) -> Vec<&str> {
        let mut names = self.step_names();
        names.extend(
            self.step_names()
                .iter()
                .filter_map(|n| n.split_once('/').map(|(e, _)| e)),
        );
        if self.quiz.is_some() {
            names.push(crate::quiz::STEP_NAME);
        }
        names
    }

    /// Every step and stage name, in course order.
    pub fn step_names(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.name.as_str()).collect()
    }

    /// Steps selected by a name: a step, an exercise (all its stages) or `None` for the whole module.
    pub fn select(&self, name: Option<&str>) -> Result<Vec<&Step>, Error> {
        let Some(name) = name else {
            return Ok(self.steps.iter().collect());
        };
        let prefix = format!("{name}/");
        let stages: Vec<&Step> = self
            .steps
            .iter()
            .filter(|s| s.name.starts_with(&prefix))
            .collect();
        if !stages.is_empty() {
            return Ok(stages);
        }
        Ok(vec![self.step(name)?])
    }

    /// The track a run uses: the one asked for, else the module's default.
    pub fn track<'a>(&'a self, asked: Option<&'a str>) -> Result<&'a str, Error> {
        let track = asked.unwrap_or(&self.manifest.tracks.default);
        if self.manifest.tracks.available.iter().any(|t| t == track) {
            Ok(track)
        } else {
            Err(Error::UnknownTrack {
                track: track.to_string(),
                module: self.manifest.module.clone(),
                available: self.manifest.tracks.available.join(", "),
            })
        }
    }

    fn validate(&self) -> Result<(), Error> {
        let repo_names: HashSet<&str> = self
            .manifest
            .repos
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        for step in &self.steps {
            if self.quiz.is_some() && step.name == crate::quiz::STEP_NAME {
                return Err(Error::CourseContent {
                    file: step.file.clone(),
                    message: "a step may not be called `quiz` in a module with a quiz: `labcheck MODULE quiz` runs the quiz".to_string(),
                });
            }
            if let Some(after) = &step.after {
                let exercise = step.name.split('/').next().unwrap_or_default();
                let earlier = format!("{exercise}/{}", after.stage);
                let position = |name: &str| self.steps.iter().position(|s| s.name == name);
                let comes_first = matches!(
                    (position(&earlier), position(&step.name)),
                    (Some(before), Some(this)) if before < this
                );
                let problem = if !comes_first {
                    Some(format!(
                        "stage `{}` is `after:` stage `{}`, which is not an earlier stage of `{exercise}`",
                        step.name, after.stage
                    ))
                } else if !repo_names.contains(after.repo.as_str()) {
                    Some(format!(
                        "stage `{}` reads repo `{}` in `after:`, which module.yaml does not list under repos:",
                        step.name, after.repo
                    ))
                } else {
                    None
                };
                if let Some(message) = problem {
                    return Err(Error::CourseContent {
                        file: step.file.clone(),
                        message,
                    });
                }
            }
            let mut ids = HashSet::new();
            for check in &step.checks {
                let unknown_after = check.after.iter().find(|a| !ids.contains(a.as_str()));
                let problem = if !ids.insert(check.id.as_str()) {
                    Some(format!(
                        "two checks have the id `{}`; ids are unique within a step",
                        check.id
                    ))
                } else if let Some(after) = unknown_after {
                    Some(format!(
                        "check `{}` says `after: [{after}]`, but no check above it in this step has that id",
                        check.id
                    ))
                } else if let Some(track) = check
                    .tracks
                    .iter()
                    .find(|t| !self.manifest.tracks.available.contains(t))
                {
                    Some(format!(
                        "check `{}` names track `{track}`, which module.yaml does not offer ({})",
                        check.id,
                        self.manifest.tracks.available.join(", ")
                    ))
                } else {
                    check
                        .kind
                        .repos()
                        .into_iter()
                        .find(|r| !repo_names.contains(r))
                        .map(|r| {
                            format!(
                                "check `{}` reads repo `{r}`, which module.yaml does not list under repos:",
                                check.id
                            )
                        })
                };
                if let Some(message) = problem {
                    return Err(Error::CourseContent {
                        file: step.file.clone(),
                        message,
                    });
                }
            }
        }
        Ok(())
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

fn check_format(file: &str, found: &str) -> Result<(), Error> {
    if found == FORMAT_VERSION {
        Ok(())
    } else {
        Err(Error::CourseContent {
            file: file.to_string(),
            message: format!(
                "has `format: {found}`, but this labcheck reads `format: {FORMAT_VERSION}`; update labcheck or the file"
            ),
        })
    }
}

/// Parse a course file; a mistake becomes `file:line:col: what was expected`. Before the parser
/// runs, the text is checked for nesting too deep to parse in time and for merge keys (which the
/// parser would keep as a key named `<<`); the parser's own terms get plain words.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let at = |line: usize, column: usize, message: String| Error::CourseFile {
        file: file.to_string(),
        line,
        column,
        message,
    };
    if let Err(deep) = crate::yaml::guard::check_depth(text) {
        return Err(at(deep.line, deep.column, deep.message()));
    }
    if let Some((line, column)) = crate::yaml::guard::find_merge_key(text) {
        return Err(at(
            line,
            column,
            "merge keys (`<<: *anchor`) are not read in course files; write the keys out"
                .to_string(),
        ));
    }
    serde_yaml::from_str(text).map_err(|e| {
        let (mut line, mut column) = crate::yaml::location::line_column(&e);
        let mut message = crate::yaml::location::strip_trailing_location(&e.to_string());
        // A value checked while it was read names itself: point at it, not at its map.
        if let Some((clean, scalar)) = take_marker(&message) {
            if let Some(found) = find_after(text, line, column, &scalar) {
                (line, column) = found;
            }
            message = clean;
        }
        if let Some(key) = message
            .split("duplicate field `")
            .nth(1)
            .and_then(|rest| rest.split('`').next())
            && let Some(found) = crate::yaml::guard::find_duplicate_key(text, key)
        {
            (line, column) = found;
            message = format!("the key `{key}` appears twice in this map; keep one");
        }
        let char_at = text
            .split('\n')
            .nth(line.saturating_sub(1))
            .and_then(|l| l.chars().nth(column.saturating_sub(1)));
        if let Some(words) = crate::yaml::guard::explain(&message, char_at) {
            message = format!("{words} ({message})");
        }
        at(line, column, message)
    })
}

/// Marks the value a message is about, so [`parse_yaml`] can point at it (stripped before shown).
const MARK: char = '\u{1}';

/// A deserializer error about the scalar `value`: `parse_yaml` moves the position to it.
pub fn about_value(value: &str, message: String) -> String {
    format!("{MARK}{value}{MARK}{message}")
}

fn take_marker(message: &str) -> Option<(String, String)> {
    let start = message.find(MARK)?;
    let rest = &message[start + MARK.len_utf8()..];
    let end = rest.find(MARK)?;
    let scalar = rest[..end].to_string();
    let clean = format!("{}{}", &message[..start], &rest[end + MARK.len_utf8()..]);
    Some((clean, scalar))
}

/// The first place `scalar` appears at or after `line`:`column`, as line and column.
fn find_after(text: &str, line: usize, column: usize, scalar: &str) -> Option<(usize, usize)> {
    if scalar.is_empty() {
        return None;
    }
    for (index, content) in text.split('\n').enumerate().skip(line.saturating_sub(1)) {
        let from = if index + 1 == line {
            content
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(content.len(), |(i, _)| i)
        } else {
            0
        };
        if let Some(found) = content[from..].find(scalar) {
            return Some((index + 1, content[..from + found].chars().count() + 1));
        }
    }
    None
}
