//! `labcheck edit set|remove|create FILE …`: one edit of one file, the way a solution script
//! makes it (`labcheck solution` prints these lines). The only command that writes into a work
//! repo, and only the file named on its command line, when a person (or the script they chose
//! to run) calls it; checking never does. Each edit is idempotent: a file that already says it
//! is left alone, and the command says so.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::emit;
use crate::error::{Error, exit};
use crate::yaml::edit::{self, EditError, Placement};
use crate::yaml::path::YamlPath;

/// `labcheck edit` options.
#[derive(Debug, Args, Clone)]
pub struct EditArgs {
    #[command(subcommand)]
    pub edit: EditCommand,
}

/// The edits.
#[derive(Debug, Subcommand, Clone)]
pub enum EditCommand {
    /// Set a value at a path of a YAML file (a map is merged key by key); only the lines the path
    /// resolves to change. The value is YAML, from --value or stdin.
    Set(SetArgs),
    /// Take a key and its value out of a YAML file, with the comment lines right above it.
    Remove(RemoveArgs),
    /// Write a new file from stdin; if it exists (YAML), set each of the text's top-level keys in it.
    Create(CreateArgs),
}

/// Where in a YAML file.
#[derive(Debug, Args, Clone)]
pub struct Target {
    /// The file, e.g. helm/dev.yaml.
    #[arg(index = 1)]
    pub file: PathBuf,
    /// The path, as check files write it: image.tag, metadata.annotations["a/b"], containers[name=app].image.
    #[arg(index = 2)]
    pub path: String,
    /// The document of a multi-document file, from 0.
    #[arg(long, value_name = "N")]
    pub document: Option<usize>,
}

/// `labcheck edit set`.
#[derive(Debug, Args, Clone)]
pub struct SetArgs {
    #[command(flatten)]
    pub target: Target,
    /// The value as YAML (`'"6.7.0"'`, `true`, `{enabled: true}`); without it, read from stdin.
    #[arg(long, value_name = "YAML")]
    pub value: Option<String>,
    /// A key the edit adds goes right after this sibling key (else at the end of its map).
    #[arg(long, value_name = "KEY", conflicts_with = "before")]
    pub after: Option<String>,
    /// A key the edit adds goes right before this sibling key.
    #[arg(long, value_name = "KEY")]
    pub before: Option<String>,
    /// Comment lines written above a key the edit adds.
    #[arg(long, value_name = "TEXT")]
    pub comment: Option<String>,
}

/// `labcheck edit remove`.
#[derive(Debug, Args, Clone)]
pub struct RemoveArgs {
    #[command(flatten)]
    pub target: Target,
}

/// `labcheck edit create`.
#[derive(Debug, Args, Clone)]
pub struct CreateArgs {
    /// The file to write, e.g. manifests/smoke-test.yaml (its folder is made if needed).
    #[arg(index = 1)]
    pub file: PathBuf,
}

/// Make the edit; say what changed, or that nothing needed to.
pub fn run(args: &EditArgs) -> Result<u8, Error> {
    let said = match &args.edit {
        EditCommand::Set(set) => {
            let path = parse_path(&set.target.path)?;
            let text = match &set.value {
                Some(text) => text.clone(),
                None => read_stdin()?,
            };
            let value: serde_yaml::Value = serde_yaml::from_str(&text)
                .map_err(|e| Error::Usage(format!("the value is not YAML: {e}")))?;
            let place = Placement {
                after: set.after.clone(),
                before: set.before.clone(),
                comment: set.comment.clone(),
            };
            let file = &set.target.file;
            let before = read_or_empty(file)?;
            let after = edit::set(&before, set.target.document, &path, &value, &place)
                .map_err(|e| refused(file, &e))?;
            write_edit(
                file,
                after,
                &format!("set `{path}`"),
                &format!("`{path}` is already so; nothing to change"),
            )?
        }
        EditCommand::Remove(remove) => {
            let path = parse_path(&remove.target.path)?;
            let file = &remove.target.file;
            let before = read_or_empty(file)?;
            let after = edit::remove(&before, remove.target.document, &path)
                .map_err(|e| refused(file, &e))?;
            write_edit(
                file,
                after,
                &format!("removed `{path}`"),
                &format!("there is no `{path}`; nothing to remove"),
            )?
        }
        EditCommand::Create(create) => {
            let text = read_stdin()?;
            let file = &create.file;
            create_file(file, &text)?
        }
    };
    emit(&said);
    Ok(exit::PASS)
}

/// Write the edited text when the edit changed the file; say what was done, or why nothing was.
fn write_edit(
    file: &Path,
    after: Option<String>,
    done: &str,
    nothing: &str,
) -> Result<String, Error> {
    let said = match after {
        Some(after) => {
            write(file, &after)?;
            done
        }
        None => nothing,
    };
    Ok(format!("{}: {said}\n", file.display()))
}

fn create_file(file: &Path, text: &str) -> Result<String, Error> {
    if !file.exists() {
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
        }
        write(file, text)?;
        return Ok(format!("{}: created\n", file.display()));
    }
    let before = read_or_empty(file)?;
    if before == text {
        return Ok(format!(
            "{}: already there; nothing to change\n",
            file.display()
        ));
    }
    let yaml = crate::course::solution::is_yaml_file(&file.to_string_lossy());
    match edit::create(Some(&before), text, yaml).map_err(|e| match e {
        EditError::Create(why) => Error::Usage(format!("{}: {why}", file.display())),
        other => refused(file, &other),
    })? {
        Some(after) => {
            write(file, &after)?;
            Ok(format!(
                "{}: was there already; its keys are set as the text says\n",
                file.display()
            ))
        }
        None => Ok(format!(
            "{}: already says what the text says; nothing to change\n",
            file.display()
        )),
    }
}

fn parse_path(text: &str) -> Result<YamlPath, Error> {
    YamlPath::parse(text).map_err(|e| Error::Usage(e.to_string()))
}

fn refused(file: &Path, error: &EditError) -> Error {
    Error::Usage(format!(
        "{}: {}; the file is unchanged",
        file.display(),
        error.words("`--document N`")
    ))
}

fn read_stdin() -> Result<String, Error> {
    std::io::read_to_string(std::io::stdin())
        .map_err(|e| Error::Usage(format!("cannot read the value from stdin: {e}")))
}

/// The file's text; a file that is not there reads as empty (the edit makes it).
fn read_or_empty(file: &Path) -> Result<String, Error> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(io(file, &e)),
    }
}

fn write(file: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(file, text).map_err(|e| io(file, &e))
}

fn io(file: &Path, e: &std::io::Error) -> Error {
    Error::Usage(format!("{}: {e}", file.display()))
}
