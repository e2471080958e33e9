//! Reporters: they turn results into text for people or documents for machines. They never decide.

pub mod human;
pub mod json;
pub mod quiz;

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
}
