//! Where reports go: the chosen format to stdout, or with `--output FILE` the machine document to
//! FILE and the human report to the terminal, so one run serves a person and the pipeline.

use std::path::Path;

use super::{emit, render};
use crate::error::Error;
use crate::report::{Format, Styles};
use crate::run::StepReport;

/// Refuse `--output` with the human format before anything runs: the file is for machines.
pub fn check_target(format: Format, output: Option<&Path>) -> Result<(), Error> {
    match output {
        Some(path) if !format.is_machine() => Err(Error::Usage(format!(
            "--output {} needs a machine format: add --format junit, tap or json (the human report goes to the terminal anyway)",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The format printed on the terminal.
pub fn terminal_format(format: Format, output: Option<&Path>) -> Format {
    if output.is_some() {
        Format::Human
    } else {
        format
    }
}

/// Print the run's report, and write the machine document to `output` when given. The terminal
/// report is printed first, so a person sees the result even when the file cannot be written.
pub fn deliver(
    reports: &[StepReport],
    module_run: bool,
    format: Format,
    output: Option<&Path>,
    styles: Styles,
) -> Result<(), Error> {
    check_target(format, output)?;
    emit(&render(
        reports,
        module_run,
        terminal_format(format, output),
        styles,
    ));
    if let Some(path) = output {
        write_document(path, &render(reports, module_run, format, Styles::plain()))?;
    }
    Ok(())
}

/// Write a machine document to `--output FILE` (a learner's run and a class run alike).
pub fn write_document(path: &Path, document: &str) -> Result<(), Error> {
    std::fs::write(path, document).map_err(|source| Error::Output {
        path: path.to_path_buf(),
        source,
    })
}
