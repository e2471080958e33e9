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
        let _ = writeln!(
            out,
            "  {mark} you chose {}) {}",
            letter(answer.chosen),
            answer.chosen_text
        );
        let _ = writeln!(
            out,
            "      {}{}",
            paint(styles, "why: ", Paint::Yellow),
            answer.chosen_why
        );
        if !ok {
            let _ = writeln!(
                out,
                "    right: {}) {}",
                letter(answer.right),
                answer.right_text
            );
            let _ = writeln!(
                out,
                "      {}{}",
                paint(styles, "why: ", Paint::Yellow),
                answer.right_why
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
