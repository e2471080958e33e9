//! Asking a quiz in the terminal: arrow keys or numbers/letters to choose, Enter to answer.

use std::io::Write;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::{cursor, queue, terminal};

use super::{Quiz, letter};
use crate::error::Error;

/// Ask every question on the terminal; `None` when the learner quits (q, Esc, Ctrl-C).
pub fn ask(quiz: &Quiz) -> Result<Option<Vec<usize>>, Error> {
    let term = |e: std::io::Error| Error::Environment(format!("cannot use the terminal: {e}"));
    terminal::enable_raw_mode().map_err(term)?;
    let result = ask_raw(quiz).map_err(term);
    let _ = terminal::disable_raw_mode();
    result
}

fn ask_raw(quiz: &Quiz) -> std::io::Result<Option<Vec<usize>>> {
    let mut out = std::io::stdout();
    let mut chosen = Vec::new();
    write!(
        out,
        "{}\r\n(↑/↓ or a number/letter to choose, Enter to answer, q to quit)\r\n",
        quiz.title
    )?;
    for (n, question) in quiz.questions.iter().enumerate() {
        let mut at = 0usize;
        let count = question.options.len();
        write!(out, "\r\n{}. {}\r\n", n + 1, question.question)?;
        draw(&mut out, question, at, false)?;
        loop {
            let Event::Key(key) = event::read()? else {
                continue;
            };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            match key.code {
                KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(None);
                }
                KeyCode::Char('q') | KeyCode::Esc => return Ok(None),
                KeyCode::Up | KeyCode::Char('k') => at = (at + count - 1) % count,
                KeyCode::Down | KeyCode::Char('j') => at = (at + 1) % count,
                KeyCode::Char(c) if c.is_ascii_digit() => {
                    let i = (c as usize).wrapping_sub('1' as usize);
                    if i < count {
                        at = i;
                    }
                }
                KeyCode::Char(c)
                    if c.is_ascii_lowercase() && ((c as u8 - b'a') as usize) < count =>
                {
                    at = (c as u8 - b'a') as usize;
                }
                KeyCode::Enter => break,
                _ => continue,
            }
            draw(&mut out, question, at, true)?;
        }
        chosen.push(at);
    }
    write!(out, "\r\n")?;
    out.flush()?;
    Ok(Some(chosen))
}

/// Draw the options with a marker at `at`; `again` moves up over the previous drawing first
/// (counting the rows a long option wraps onto).
fn draw(
    out: &mut impl Write,
    question: &super::Question,
    at: usize,
    again: bool,
) -> std::io::Result<()> {
    let width = terminal::size()
        .map(|(w, _)| w.max(1) as usize)
        .unwrap_or(80);
    let line = |i: usize, text: &str| {
        let marker = if i == at { '›' } else { ' ' };
        format!("  {marker} {}) {text}", letter(i))
    };
    if again {
        let rows: usize = question
            .options
            .iter()
            .enumerate()
            .map(|(i, o)| line(i, &o.text).chars().count().div_ceil(width).max(1))
            .sum();
        queue!(
            out,
            cursor::MoveUp(u16::try_from(rows).unwrap_or(u16::MAX)),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        )?;
    }
    for (i, option) in question.options.iter().enumerate() {
        write!(out, "\r{}\r\n", line(i, &option.text))?;
    }
    out.flush()
}
