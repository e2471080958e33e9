//! Where reports go. One scheme for every command that checks: `-o FORMAT` (`--format`) is what
//! is printed, `--report FORMAT=FILE` writes a document to a file (repeat it for several), and the
//! older `--output FILE` writes the `-o` document to FILE while the terminal gets the human report.
//! Every file goes through [`write_document`].

use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::{Args, ValueEnum};

use super::emit;
use crate::error::Error;
use crate::report::{Format, Styles};

/// `-o`, `--report` and `--output`, shared by every command that reports checks.
#[derive(Debug, Args, Clone, Default)]
pub struct ReportArgs {
    /// What to print, as kubectl's -o: human, json, yaml, junit, tap (version 13, as `prove`
    /// reads it) or tap14.
    #[arg(short = 'o', long, value_enum, default_value_t = Format::Human, value_name = "FORMAT")]
    pub format: Format,

    /// Also write a report to a file, FORMAT=FILE (e.g. junit=labcheck.xml); repeat for several.
    #[arg(long = "report", value_name = "FORMAT=FILE")]
    pub reports: Vec<ReportFile>,

    /// Write the -o report (json, yaml, junit, tap) to FILE and print the human report: the same as
    /// `--report FORMAT=FILE` with the human report on the terminal.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// One `--report FORMAT=FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportFile {
    pub format: Format,
    pub path: PathBuf,
}

impl FromStr for ReportFile {
    type Err = String;

    fn from_str(text: &str) -> Result<ReportFile, String> {
        let names = || {
            Format::value_variants()
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((format, path)) = text.split_once('=') else {
            return Err(format!(
                "expected FORMAT=FILE, e.g. junit=labcheck.xml (formats: {})",
                names()
            ));
        };
        let format = Format::from_str(format, true)
            .map_err(|_| format!("`{format}` is not a format; choose one of: {}", names()))?;
        if path.is_empty() {
            return Err(format!("no file after `{}=`", format.name()));
        }
        Ok(ReportFile {
            format,
            path: PathBuf::from(path),
        })
    }
}

/// Where one run's reports go: one format printed, documents written to files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    pub terminal: Format,
    pub files: Vec<ReportFile>,
}

impl ReportArgs {
    /// Check the flags before anything runs and say where each report goes.
    pub fn outputs(&self) -> Result<Outputs, Error> {
        let mut files = self.reports.clone();
        let mut terminal = self.format;
        if let Some(path) = &self.output {
            if let Some(format) = format_named(path) {
                return Err(Error::Usage(format!(
                    "--output names the file to write, and `{}` looks like a format: did you mean `-o {}` (print {0}), or `--report {0}=labcheck.{}` (write it to a file)?",
                    format.name(),
                    format.name(),
                    extension(format)
                )));
            }
            if !self.format.is_machine() {
                return Err(Error::Usage(format!(
                    "--output {} needs a machine format: add -o junit, tap, json or yaml (the human report goes to the terminal anyway), or use --report FORMAT={0}",
                    path.display()
                )));
            }
            files.push(ReportFile {
                format: self.format,
                path: path.clone(),
            });
            terminal = Format::Human;
        }
        for (i, file) in files.iter().enumerate() {
            if files[..i].iter().any(|f| f.path == file.path) {
                return Err(Error::Usage(format!(
                    "{} is named for two reports; give each report its own file",
                    file.path.display()
                )));
            }
        }
        Ok(Outputs { terminal, files })
    }

    /// Whether any flag asks for something besides the human report on the terminal.
    pub fn asked_for_more_than_human(&self) -> bool {
        self.format != Format::Human || !self.reports.is_empty() || self.output.is_some()
    }
}

/// The format a bare `--output json` names, if the value is a format's name and not a file's.
fn format_named(path: &Path) -> Option<Format> {
    if path.extension().is_some() || path.components().count() != 1 || path.exists() {
        return None;
    }
    Format::from_str(&path.to_string_lossy(), true).ok()
}

/// The usual file extension of a format's document.
pub fn extension(format: Format) -> &'static str {
    match format {
        Format::Human => "txt",
        Format::Json => "json",
        Format::Yaml => "yaml",
        Format::Junit => "xml",
        Format::Tap | Format::Tap14 => "tap",
    }
}

/// Print the report in the terminal's format, then write every file. The terminal report comes
/// first, so a person sees the result even when a file cannot be written; every file is tried,
/// and the first that could not be written is the error.
pub fn deliver(
    outputs: &Outputs,
    styles: Styles,
    render: impl Fn(Format, Styles) -> String,
) -> Result<(), Error> {
    emit(&render(outputs.terminal, styles));
    let mut first_error = None;
    for file in &outputs.files {
        if let Err(e) = write_document(&file.path, &render(file.format, Styles::plain())) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Write a report document to a file (a learner's run and a class run alike): the one place
/// labcheck writes a report.
pub fn write_document(path: &Path, document: &str) -> Result<(), Error> {
    std::fs::write(path, document).map_err(|source| Error::Output {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(format: Format, reports: &[&str], output: Option<&str>) -> ReportArgs {
        ReportArgs {
            format,
            reports: reports
                .iter()
                .map(|r| r.parse().expect("a report"))
                .collect(),
            output: output.map(PathBuf::from),
        }
    }

    #[test]
    fn several_reports_and_the_printed_format_are_independent() {
        let outputs = args(Format::Tap, &["junit=a.xml", "json=a.json"], None)
            .outputs()
            .expect("valid");
        assert_eq!(outputs.terminal, Format::Tap);
        assert_eq!(
            outputs.files,
            [
                ReportFile {
                    format: Format::Junit,
                    path: "a.xml".into()
                },
                ReportFile {
                    format: Format::Json,
                    path: "a.json".into()
                }
            ]
        );
    }

    #[test]
    fn output_file_is_a_report_of_the_o_format_with_the_human_report_printed() {
        let outputs = args(Format::Junit, &["json=a.json"], Some("a.xml"))
            .outputs()
            .expect("valid");
        assert_eq!(outputs.terminal, Format::Human);
        assert_eq!(outputs.files.len(), 2);
        assert_eq!(outputs.files[1].format, Format::Junit);
    }

    #[test]
    fn malformed_report_values_say_what_is_expected() {
        let cases = [
            ("labcheck.xml", "expected FORMAT=FILE"),
            ("xml=labcheck.xml", "`xml` is not a format"),
            ("junit=", "no file after `junit=`"),
        ];
        for (value, message) in cases {
            let error = value.parse::<ReportFile>().expect_err(value);
            assert!(error.contains(message), "{value}: {error}");
        }
    }

    #[test]
    fn two_reports_to_one_file_are_refused() {
        let error = args(Format::Human, &["junit=r", "tap=r"], None)
            .outputs()
            .expect_err("one file, two reports");
        assert!(
            error.to_string().contains("named for two reports"),
            "{error}"
        );
    }
}
