//! `labcheck course test|lint`: the course's self-test and lint, for instructors and CI.

use std::sync::Arc;

use clap::{Args, Subcommand};

use super::output::HumanOrJsonArgs;
use super::{CourseDirArg, emit};
use crate::course::Course;
use crate::error::{Error, exit};
use crate::report::{self, HumanOrJson, Styles};
use crate::selftest::{self, lint};

/// `labcheck course` options.
#[derive(Debug, Args, Clone)]
pub struct CourseArgs {
    #[command(subcommand)]
    pub command: CourseCommand,
}

/// What to do with the course.
#[derive(Debug, Subcommand, Clone)]
pub enum CourseCommand {
    /// Build every step's fixtures (git repos + a served snapshot) and check that solved states
    /// pass and broken variants fail on exactly the checks they name.
    Test(TestArgs),
    /// Validate every course file, reference, hint and fixture; run each step on the fresh lab
    /// (a check whose title claims an action must not pass there).
    Lint(LintArgs),
}

/// Where the course is and how to report.
#[derive(Debug, Args, Clone)]
pub struct CourseOptions {
    #[command(flatten)]
    pub course: CourseDirArg,

    /// `-o human|json` and `--color`.
    #[command(flatten)]
    pub output: HumanOrJsonArgs,
}

/// `labcheck course test` options.
#[derive(Debug, Args, Clone)]
pub struct TestArgs {
    /// Test only this module (default: every module).
    pub module: Option<String>,

    /// Test only this step, exercise or stage of MODULE (e.g. `step-4`, `break-it/fix`): its
    /// states and its walk; the steps before it are built from their solutions, not judged.
    #[arg(requires = "module")]
    pub step: Option<String>,

    #[command(flatten)]
    pub options: CourseOptions,
}

/// `labcheck course lint` options.
#[derive(Debug, Args, Clone)]
pub struct LintArgs {
    /// List, per check, the causes it can fail with and which hint serves each: the course's
    /// keyed text, its `default`, labcheck's own, or none.
    #[arg(long)]
    pub causes: bool,

    #[command(flatten)]
    pub options: CourseOptions,
}

fn load(options: &CourseOptions) -> Result<Course, Error> {
    match &options.course.course_dir {
        Some(dir) => Course::from_dir(dir),
        None => Course::embedded(),
    }
}

/// Run `labcheck course …`; 0 all as declared, 1 something is not, 2 the course does not load.
pub async fn run(args: &CourseArgs) -> Result<u8, Error> {
    match &args.command {
        CourseCommand::Test(test) => run_test(test).await,
        CourseCommand::Lint(lint_args) => {
            let course = Arc::new(load(&lint_args.options)?);
            let mut problems = lint::lint(&course);
            // The one rule that needs the fresh lab built: a title that claims an action must
            // not pass where nothing happened.
            let scratch = scratch("labcheck-course-lint-", "the fresh lab")?;
            problems.extend(crate::selftest::fresh::lint_fresh(&course, scratch.path()).await);
            let causes = if lint_args.causes {
                selftest::causes::table(&course)
            } else {
                Vec::new()
            };
            let styles = Styles::decide(lint_args.options.output.color);
            emit(&match lint_args.options.output.format {
                HumanOrJson::Json => report::selftest::json_lint(&problems, &causes),
                HumanOrJson::Human => {
                    report::selftest::human_causes(&causes, styles)
                        + &report::selftest::human_lint(course.modules.len(), &problems, styles)
                }
            });
            Ok(if problems.is_empty() {
                exit::PASS
            } else {
                exit::FAIL
            })
        }
    }
}

async fn run_test(args: &TestArgs) -> Result<u8, Error> {
    let course = Arc::new(load(&args.options)?);
    let modules = match &args.module {
        Some(name) => vec![course.module(name)?],
        None => course.modules.iter().collect(),
    };
    let scratch = scratch("labcheck-course-test-", "the fixture worlds")?;
    let labcheck = std::env::current_exe().map_err(|e| {
        Error::Environment(format!(
            "cannot find this labcheck's own path for the walk's scripts: {e}"
        ))
    })?;
    let mut results = Vec::new();
    for module in modules {
        let dir = scratch.path().join(&module.manifest.module);
        results.push(
            selftest::test_module(
                &course,
                module,
                selftest::Only(args.step.as_deref()),
                &dir,
                &labcheck,
                report::solution::script,
            )
            .await?,
        );
    }
    emit(&match args.options.output.format {
        HumanOrJson::Json => report::selftest::json_test(&results),
        HumanOrJson::Human => {
            report::selftest::human_test(&results, Styles::decide(args.options.output.color))
        }
    });
    Ok(if results.iter().all(selftest::ModuleResult::ok) {
        exit::PASS
    } else {
        exit::FAIL
    })
}

/// A temporary folder (named `prefix…`) for `what`, removed when dropped.
fn scratch(prefix: &str, what: &str) -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|e| Error::Environment(format!("cannot make a temporary folder for {what}: {e}")))
}
