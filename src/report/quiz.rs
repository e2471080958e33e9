//! A graded quiz for people: each answer right or wrong, with why, and the score.

use std::fmt::Write;

use super::Styles;
use super::human::{Paint, paint};
use crate::quiz::{Graded, letter};

/// Render a graded quiz.
pub fn render(graded: &Graded, styles: Styles) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        paint(
            styles,
            &format!("{} · {}", graded.module, graded.title),
            Paint::Bold
        )
    );
    for (n, answer) in graded.answers.iter().enumerate() {
        let _ = writeln!(out, "\n{}. {}", n + 1, answer.question);
        let ok = answer.chosen == answer.right;
        let (pass, fail) = styles.pass_fail();
        let mark = if ok {
            paint(styles, pass, Paint::Green)
        } else {
            paint(styles, fail, Paint::Red)
        };
        let chosen = format!("  {mark} you chose");
        let why = (&answer.chosen_text, &answer.chosen_why);
        choice(
            &mut out,
            styles,
            &chosen,
            letter(answer.chosen),
            why.0,
            why.1,
        );
        if !ok {
            let why = (&answer.right_text, &answer.right_why);
            choice(
                &mut out,
                styles,
                "    right:",
                letter(answer.right),
                why.0,
                why.1,
            );
        }
    }
    let right = graded.right();
    let of = graded.answers.len();
    let verdict = if right == of {
        paint(styles, "all right", Paint::Green)
    } else {
        paint(styles, "not all right yet", Paint::Red)
    };
    let _ = writeln!(out, "\nquiz: {verdict} ({right} of {of})");
    out
}

/// One answer's line (`head` then the answer) and the line saying why.
fn choice(out: &mut String, styles: Styles, head: &str, option: char, text: &str, why: &str) {
    let _ = writeln!(out, "{head} {option}) {text}");
    let _ = writeln!(out, "      {}{why}", paint(styles, "why: ", Paint::Yellow));
}
