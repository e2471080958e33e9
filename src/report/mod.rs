//! Reporters: they turn results into text for people or documents for machines (JSON, JUnit, TAP).
//! They never decide.

pub mod class_page;
pub mod course;
pub mod deliver;
pub mod hint;
pub mod human;
pub mod json;
pub mod junit;
pub mod matrix;
pub mod plan;
pub mod quiz;
pub mod reads;
pub mod selftest;
pub mod solution;
pub mod tap;
pub mod waiting;
pub mod watch;

use clap::ValueEnum;

use crate::run::StepReport;

/// What is reported, in every format: one run's reports ([`Run`]) or a class's runs
/// ([`matrix::Class`]). Each method is a way of writing it; a [`Format`] picks one in
/// [`render_document`], the only place formats are dispatched. A format that needs a way of its
/// own adds a method here, and the compiler then asks every document for it.
pub trait Document {
    /// Text for people.
    fn human(&self, styles: Styles) -> String;
    /// One JSON document (YAML is the same document).
    fn json(&self) -> String;
    /// JUnit XML.
    fn junit(&self) -> String;
    /// TAP, of `version`.
    fn tap(&self, version: tap::Version) -> String;
}

/// `document` in `format`: the one dispatch of formats, for a learner's run and a class's alike.
pub fn render_document(document: &dyn Document, format: Format, styles: Styles) -> String {
    match format {
        Format::Human => document.human(styles),
        Format::Json => document.json(),
        Format::Yaml => json_as_yaml(&document.json()),
        Format::Junit => document.junit(),
        Format::Tap => document.tap(tap::Version::Thirteen),
        Format::Tap14 => document.tap(tap::Version::Fourteen),
    }
}

/// One run's reports: one step alone, or a module (an exercise, several steps) with its
/// overview.
pub struct Run<'a> {
    pub reports: &'a [StepReport],
    /// Whether the run covered more than one step asked for (see `SessionRun::module_run`).
    pub module_run: bool,
}

impl Document for Run<'_> {
    fn human(&self, styles: Styles) -> String {
        match self.reports {
            [one] if !self.module_run => human::render_step(one, styles),
            reports => human::render_module(reports, styles),
        }
    }

    fn json(&self) -> String {
        json::render(self.reports, self.module_run)
    }

    fn junit(&self) -> String {
        junit::render(self.reports)
    }

    fn tap(&self, version: tap::Version) -> String {
        tap::render(self.reports, version)
    }
}

/// Render a run's reports in `format` (see [`Run`]).
pub fn render(reports: &[StepReport], module_run: bool, format: Format, styles: Styles) -> String {
    render_document(
        &Run {
            reports,
            module_run,
        },
        format,
        styles,
    )
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour on a terminal; `NO_COLOR` and `TERM=dumb` turn it off, `CLICOLOR_FORCE` and
    /// `FORCE_COLOR` turn it on (CI logs).
    #[default]
    Auto,
    Always,
    Never,
}

/// How output looks, decided once per run and carried along (never looked up globally): colour,
/// the marks (✓ ✗, or `[ok]` `[FAIL]` where the locale is not UTF-8) and whether passing checks
/// are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Styles {
    pub color: bool,
    /// ASCII marks instead of ✓/✗: the terminal's locale cannot show them.
    pub ascii: bool,
    /// `--quiet`: only what did not pass.
    pub quiet: bool,
}

impl Styles {
    /// Decide from the flag and the environment, for stdout. supports-color reads `NO_COLOR`,
    /// `TERM=dumb`, `CLICOLOR_FORCE`/`FORCE_COLOR` and whether stdout is a terminal;
    /// supports-unicode reads the locale (`LC_ALL`, `LC_CTYPE`, `LANG`) of a terminal (a pipe or
    /// a file gets UTF-8, which is what labcheck writes).
    pub fn decide(choice: ColorChoice) -> Styles {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                supports_color::on(supports_color::Stream::Stdout).is_some_and(|l| l.has_basic)
            }
        };
        Styles {
            color,
            ascii: !supports_unicode::on(supports_unicode::Stream::Stdout),
            quiet: false,
        }
    }

    /// No colour at all, Unicode marks (files, which labcheck writes as UTF-8; snapshots).
    pub fn plain() -> Styles {
        Styles {
            color: false,
            ascii: false,
            quiet: false,
        }
    }

    /// The same, showing only what did not pass.
    pub fn quiet(self, quiet: bool) -> Styles {
        Styles { quiet, ..self }
    }

    /// The mark for a pass and a fail: `✓`/`✗`, or `[ok]`/`[FAIL]` in ASCII.
    pub fn pass_fail(self) -> (&'static str, &'static str) {
        if self.ascii {
            ("[ok]", "[FAIL]")
        } else {
            ("✓", "✗")
        }
    }
}

/// `-o`/`--format`: what is printed. Adding a format is this one declaration (its doc comment is
/// its `--help` line); the compiler then asks for its arm in [`Format::name`], in
/// [`Format::extension`] and in [`render_document`] (a way of writing of its own is a method of
/// [`Document`], which every document then implements), and the report snapshots, which run every
/// format of [`Format::all`], ask for its documents. docs/ci.md says what it is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Text for people, with colour and hints.
    #[default]
    Human,
    /// One JSON document (see README).
    Json,
    /// The JSON document as YAML (same fields).
    Yaml,
    /// JUnit XML for CI: a test suite per step, a test case per check (see docs/ci.md).
    Junit,
    /// TAP version 13 with YAML diagnostics, as `prove` reads it (see docs/ci.md).
    Tap,
    /// TAP version 14: the same points, with the version line TAP 14 consumers expect.
    Tap14,
}

impl Format {
    /// Every format, in `--help`'s order.
    pub fn all() -> &'static [Format] {
        Format::value_variants()
    }

    /// Whether this is a document for machines.
    pub fn is_machine(self) -> bool {
        self != Format::Human
    }

    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Junit => "junit",
            Format::Tap => "tap",
            Format::Tap14 => "tap14",
        }
    }

    /// The usual file extension of its document.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Human => "txt",
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Junit => "xml",
            Format::Tap | Format::Tap14 => "tap",
        }
    }
}

/// A JSON document rendered as YAML (`-o yaml`): same fields, same order.
pub fn json_as_yaml(json: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(value) => serde_yaml::to_string(&value).unwrap_or_else(|e| format!("# {e}\n")),
        // The JSON renderers build values with serde_json, so this cannot happen; if it ever
        // did, the document is still shown rather than lost.
        Err(_) => json.to_string(),
    }
}

/// For commands whose output is a story for people or one JSON document (no JUnit or TAP):
/// `demo`, `plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HumanOrJson {
    /// Text for people, with colour and hints.
    Human,
    /// One JSON document.
    Json,
}

impl From<HumanOrJson> for Format {
    fn from(format: HumanOrJson) -> Format {
        match format {
            HumanOrJson::Human => Format::Human,
            HumanOrJson::Json => Format::Json,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_named_as_the_command_line_takes_it() {
        for format in Format::all() {
            let value = format.to_possible_value().expect("no format is hidden");
            assert_eq!(value.get_name(), format.name());
        }
    }
}
