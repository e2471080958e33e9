//! `labcheck status`: the course map from the learner's progress (no checks run).

use std::path::PathBuf;

use clap::Args;

use super::{emit, warn};
use crate::error::{Error, exit};
use crate::progress::Learner;
use crate::report::{self, ColorChoice, Styles};
use crate::run;

/// `labcheck status` options.
#[derive(Debug, Args, Clone)]
pub struct StatusArgs {
    /// Read the course from this folder (modules/ and expected/) instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,

    /// When to colour output (NO_COLOR is honoured with auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// Print the course map.
pub fn run(args: &StatusArgs) -> Result<u8, Error> {
    let course = run::session::load_course(args.course_dir.as_deref())?;
    let learner = Learner::load();
    warn(&learner.warnings);
    emit(&report::course::map(
        &course,
        &learner,
        Styles::decide(args.color),
    ));
    Ok(exit::PASS)
}
