//! The flags that say where reports go. One scheme for every command that checks: `-o FORMAT`
//! (`--format`) is what is printed, `--report FORMAT=FILE` writes a document to a file (repeat it
//! for several), and the older `--output FILE` writes the `-o` document to FILE while the terminal
//! gets the human report. Where they go, and the writing of them, is `report::deliver`'s.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::error::Error;
pub use crate::report::deliver::{
    Outputs, Protected, ReportFile, check_destination, deliver, write_report_file,
};
use crate::report::{ColorChoice, Format, HumanOrJson};

/// `-o`, `--report` and `--output`, shared by every command that reports checks.
#[derive(Debug, Args, Clone, Default)]
pub struct ReportArgs {
    /// What to print, as kubectl's -o (the formats are listed below).
    #[arg(short = 'o', long, value_enum, default_value_t = Format::Human, value_name = "FORMAT")]
    pub format: Format,

    /// Also write a report to a file, FORMAT=FILE (e.g. junit=labcheck.xml); repeat for several.
    /// Written atomically, and never inside a work repo.
    #[arg(long = "report", value_name = "FORMAT=FILE")]
    pub reports: Vec<ReportFile>,

    /// Write the -o report (json, yaml, junit, tap) to FILE and print the human report: the same as
    /// `--report FORMAT=FILE` with the human report on the terminal.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `-o human|json` and `--color`, shared by the commands whose output is a story for people or
/// one JSON document (`demo`, `plan`, `course test|lint`).
#[derive(Debug, Args, Clone)]
pub struct HumanOrJsonArgs {
    /// Report format.
    #[arg(short = 'o', long, value_enum, default_value_t = HumanOrJson::Human)]
    pub format: HumanOrJson,

    /// When to colour output (NO_COLOR is honoured with auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
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
                    format.extension()
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
