//! `labcheck solution MODULE STEP`: the course's own actions for a step, printed as a bash script
//! (`set -euo pipefail`, paths from `--work-dir`). labcheck writes nothing: whoever pipes the
//! script to `bash` makes the changes (its YAML edits are `labcheck edit` lines, which write only
//! when that person runs them). The script is idempotent: run again, it changes nothing.

use std::path::PathBuf;

use clap::Args;

use super::{CourseDirArg, emit};
use crate::error::{Error, exit};
use crate::progress::workdir::WorkDir;
use crate::report;
use crate::run;

/// `labcheck solution` options.
#[derive(Debug, Args, Clone)]
pub struct SolutionArgs {
    /// The module, e.g. module-10.
    #[arg(index = 1)]
    pub module: String,

    /// The step or stage, e.g. step-4 or break-it/fix; without it, the module's steps and
    /// stages in course order, one a line (for scripts that do them all).
    #[arg(index = 2)]
    pub step: Option<String>,

    /// Folder holding the work repos the script changes (default ~/work).
    #[arg(long, env = "LABCHECK_WORK_DIR", value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    #[command(flatten)]
    pub course: CourseDirArg,
}

/// Print the script.
pub fn run(args: &SolutionArgs) -> Result<u8, Error> {
    let course = args.course.load()?;
    let module = course.module(&args.module)?;
    let Some(name) = &args.step else {
        let names: String = module
            .steps
            .iter()
            .map(|s| format!("{}\n", s.name))
            .collect();
        emit(&names);
        return Ok(exit::PASS);
    };
    let step = module.step(name)?;
    if step.solution.is_empty() {
        return Err(Error::Usage(format!(
            "{} {name} has no `solution:` in the course",
            args.module
        )));
    }
    let work_dir = WorkDir::resolve(args.work_dir.as_deref())?.path;
    let work_dir = std::path::absolute(&work_dir).unwrap_or(work_dir);
    let reverts = run::solution::revert_targets(module, step, &work_dir);
    let course_dir = args
        .course
        .course_dir
        .as_deref()
        .map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    emit(&report::solution::script(
        &args.module,
        step,
        &work_dir.to_string_lossy(),
        &reverts,
        course_dir
            .as_deref()
            .map(|d| d.to_string_lossy())
            .as_deref(),
    ));
    Ok(exit::PASS)
}
