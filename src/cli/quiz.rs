//! `labcheck MODULE quiz`: ask (or take `--answers`), grade, explain, save the result.

use std::io::IsTerminal;

use super::{LearnerArgs, RunArgs, emit, save, warn};
use crate::error::{Error, exit};
use crate::progress::{Learner, QuizResult};
use crate::quiz::{self, grade, parse_answers};
use crate::report::Styles;

/// Run the module's quiz.
pub async fn run(
    args: &RunArgs,
    module_name: &str,
    learner_args: &LearnerArgs,
) -> Result<u8, Error> {
    let course = args.setup.course.load()?;
    let module = course.module(module_name)?;
    let Some(quiz) = &module.quiz else {
        return Err(Error::Usage(format!(
            "{module_name} has no quiz; `labcheck list` shows its steps"
        )));
    };
    let chosen = match &learner_args.answers {
        Some(text) => parse_answers(text, quiz)?,
        None if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() => {
            match quiz::ask::ask(quiz)? {
                Some(chosen) => chosen,
                None => {
                    emit("quiz left; nothing saved\n");
                    return Ok(exit::FAIL);
                }
            }
        }
        None => {
            return Err(Error::Usage(format!(
                "the quiz asks on a terminal; in a script pass the answers: `labcheck {module_name} quiz --answers {}`",
                (1..=quiz.questions.len())
                    .map(|n| format!("{n}=a"))
                    .collect::<Vec<_>>()
                    .join(",")
            )));
        }
    };
    let graded = grade(module_name, quiz, &chosen);
    let mut learner = Learner::load();
    warn(&learner.warnings);
    learner.progress.record_quiz(
        module_name,
        QuizResult {
            at: jiff::Timestamp::now(),
            right: graded.right(),
            of: graded.answers.len(),
            answers: graded.answers_text(),
        },
    );
    save(&mut learner);
    emit(&crate::report::quiz::render(
        &graded,
        Styles::decide(args.color),
    ));
    Ok(if graded.right() == graded.answers.len() {
        exit::PASS
    } else {
        exit::FAIL
    })
}
