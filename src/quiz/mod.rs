//! A module's quiz as course data: questions, options, the right one, and why each option is
//! right or wrong. Grading is pure; asking lives in `ask.rs`, showing in `report::quiz`.

pub mod ask;

use serde::Deserialize;

use crate::error::Error;
use crate::yaml::course_file::{check_format, parse_yaml};

/// The word after a module that runs its quiz: `labcheck module-10 quiz`.
pub const STEP_NAME: &str = "quiz";

/// A quiz file (`quiz:` in module.yaml names it).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quiz {
    pub format: String,
    pub title: String,
    pub questions: Vec<Question>,
}

/// One question with its options.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub question: String,
    pub options: Vec<QuizOption>,
}

/// One answer to choose.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuizOption {
    pub text: String,
    /// Exactly one option of a question is right.
    #[serde(default)]
    pub right: bool,
    /// Why this option is right or wrong, shown after grading.
    pub why: String,
}

impl Quiz {
    /// Parse and validate a quiz file.
    pub fn parse(file: &str, text: &str) -> Result<Quiz, Error> {
        let quiz: Quiz = parse_yaml(file, text)?;
        let problem = |message: String| Error::CourseContent {
            file: file.to_string(),
            message,
        };
        check_format(file, &quiz.format)?;
        if quiz.questions.is_empty() {
            return Err(problem("a quiz needs at least one question".to_string()));
        }
        for (i, q) in quiz.questions.iter().enumerate() {
            let rights = q.options.iter().filter(|o| o.right).count();
            if !(2..=26).contains(&q.options.len()) {
                return Err(problem(format!(
                    "question {} has {} options; give between 2 and 26",
                    i + 1,
                    q.options.len()
                )));
            }
            if rights != 1 {
                return Err(problem(format!(
                    "question {} marks {rights} options `right: true`; mark exactly one",
                    i + 1
                )));
            }
        }
        Ok(quiz)
    }
}

/// The letter of option `index` (0 → a).
pub fn letter(index: usize) -> char {
    (b'a' + (index % 26) as u8) as char
}

/// Read `--answers 1=a,2=b,3=c` (a letter or an option number per question; every question
/// answered once). Returns the chosen option index per question.
pub fn parse_answers(text: &str, quiz: &Quiz) -> Result<Vec<usize>, Error> {
    let usage = |why: String| {
        Error::Usage(format!(
            "--answers {text}: {why}; write one `QUESTION=OPTION` per question, e.g. --answers {}",
            example(quiz)
        ))
    };
    let mut chosen: Vec<Option<usize>> = vec![None; quiz.questions.len()];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((q, o)) = part.split_once('=') else {
            return Err(usage(format!("`{part}` has no `=`")));
        };
        let number: usize = q
            .trim()
            .parse()
            .map_err(|_| usage(format!("`{}` is not a question number", q.trim())))?;
        let Some(question) = number.checked_sub(1).and_then(|i| quiz.questions.get(i)) else {
            return Err(usage(format!(
                "there is no question {number} (the quiz has {})",
                quiz.questions.len()
            )));
        };
        let o = o.trim().to_ascii_lowercase();
        let option = match (o.parse::<usize>(), o.chars().collect::<Vec<_>>().as_slice()) {
            (Ok(n), _) if n >= 1 => Some(n - 1),
            (_, [c]) if c.is_ascii_lowercase() => Some((*c as u8 - b'a') as usize),
            _ => None,
        }
        .filter(|&i| i < question.options.len())
        .ok_or_else(|| {
            usage(format!(
                "question {number} has options a–{}, not `{o}`",
                letter(question.options.len() - 1)
            ))
        })?;
        if chosen[number - 1].replace(option).is_some() {
            return Err(usage(format!("question {number} is answered twice")));
        }
    }
    let missing: Vec<String> = chosen
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_none())
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !missing.is_empty() {
        return Err(usage(format!(
            "no answer for question {}",
            missing.join(", ")
        )));
    }
    Ok(chosen.into_iter().flatten().collect())
}

fn example(quiz: &Quiz) -> String {
    (1..=quiz.questions.len())
        .map(|n| format!("{n}=a"))
        .collect::<Vec<_>>()
        .join(",")
}

/// A graded quiz: for each question, the option chosen and the right one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    pub module: String,
    pub title: String,
    pub answers: Vec<GradedAnswer>,
}

/// One graded answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GradedAnswer {
    pub question: String,
    pub chosen: usize,
    pub right: usize,
    pub chosen_text: String,
    pub chosen_why: String,
    pub right_text: String,
    pub right_why: String,
}

impl Graded {
    /// How many answers were right.
    pub fn right(&self) -> usize {
        self.answers.iter().filter(|a| a.chosen == a.right).count()
    }

    /// The answers as `--answers` takes them.
    pub fn answers_text(&self) -> String {
        self.answers
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{}={}", i + 1, letter(a.chosen)))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Grade `chosen` (one option index per question, as [`parse_answers`] returns).
pub fn grade(module: &str, quiz: &Quiz, chosen: &[usize]) -> Graded {
    let answers = quiz
        .questions
        .iter()
        .zip(chosen)
        .map(|(q, &chosen)| {
            let right = q.options.iter().position(|o| o.right).unwrap_or(0);
            let pick = |i: usize| q.options.get(i).or(q.options.first());
            GradedAnswer {
                question: q.question.clone(),
                chosen,
                right,
                chosen_text: pick(chosen).map(|o| o.text.clone()).unwrap_or_default(),
                chosen_why: pick(chosen).map(|o| o.why.clone()).unwrap_or_default(),
                right_text: pick(right).map(|o| o.text.clone()).unwrap_or_default(),
                right_why: pick(right).map(|o| o.why.clone()).unwrap_or_default(),
            }
        })
        .collect();
    Graded {
        module: module.to_string(),
        title: quiz.title.clone(),
        answers,
    }
}

#[cfg(test)]
mod tests;
