//! Reporters: they turn results into text for people or documents for machines (JSON, JUnit, TAP).
//! They never decide.

pub mod human;
pub mod json;
pub mod junit;
pub mod matrix;
pub mod plan;
pub mod quiz;
pub mod selftest;
pub mod tap;
pub mod waiting;

use std::io::IsTerminal;

use clap::ValueEnum;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

/// Colour decided once per run and carried along (never looked up globally).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Styles {
    pub color: bool,
}

impl Styles {
    /// Decide from the flag, `NO_COLOR` and whether stdout is a terminal.
    pub fn decide(choice: ColorChoice) -> Styles {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        };
        Styles { color }
    }

    /// No colour at all (snapshots, files).
    pub fn plain() -> Styles {
        Styles { color: false }
    }
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Text for people, with colour and hints.
    #[default]
    Human,
    /// One JSON document (see README).
    Json,
    /// JUnit XML for CI: a test suite per step, a test case per check (see docs/ci.md).
    Junit,
    /// TAP version 14 with YAML diagnostics (see docs/ci.md).
    Tap,
}

impl Format {
    /// Whether this is a document for machines (and so may go to `--output FILE`).
    pub fn is_machine(self) -> bool {
        self != Format::Human
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
