//! `labcheck status`: the course map from the learner's progress (no checks run).

use clap::Args;

use super::{CourseDirArg, emit, warn};
use crate::error::{Error, exit};
use crate::progress::Learner;
use crate::report::{self, ColorChoice, Styles};

/// `labcheck status` options.
#[derive(Debug, Args, Clone)]
pub struct StatusArgs {
    #[command(flatten)]
    pub course: CourseDirArg,

    /// When to colour output (NO_COLOR is honoured with auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// Print the course map.
pub fn run(args: &StatusArgs) -> Result<u8, Error> {
    let course = args.course.load()?;
    let learner = Learner::load();
    warn(&learner.warnings);
    emit(&report::course::map(
        &course,
        &learner,
        Styles::decide(args.color),
    ));
    Ok(exit::PASS)
}
