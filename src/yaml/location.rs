//! Where a YAML parse error is: serde_yaml gives a line and column and also writes
//! " at line L column C" into its message; labcheck puts the position in front
//! (`file:line:col: message`), so the words are taken out of the message.

/// The line and column (from 1) serde_yaml names for `error`; `(1, 1)` when it names none (an
/// error about the whole input, e.g. an empty document where a map was wanted).
pub fn line_column(error: &serde_yaml::Error) -> (usize, usize) {
    error
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((1, 1))
}

/// `message` without the trailing " at line L column C" serde_yaml appends (cut at the last one,
/// so a context such as "while parsing a map at line 1 column 1" before it stays).
pub fn strip_trailing_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// `message` without any " at line L column C", wherever serde_yaml put it (also mid-sentence,
/// before a context such as ", while parsing a block mapping").
pub fn strip_every_location(message: &str) -> String {
    static AT: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r" at line \d+ column \d+").ok());
    match AT.as_ref() {
        Some(at) => at.replace_all(message, "").into_owned(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_position_is_taken_out_of_the_message_and_given_as_numbers() {
        let error = match serde_yaml::from_str::<serde_yaml::Value>("a: 1\nb: [1, 2\n") {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        let (line, column) = line_column(&error);
        assert!(line >= 2, "{line}:{column}");
        let message = error.to_string();
        assert!(message.contains(" at line "), "{message}");
        assert!(!strip_every_location(&message).contains(" at line "));
        assert!(!strip_trailing_location(&message).ends_with(&format!("column {column}")));
    }

    #[test]
    fn trailing_and_every_differ_only_on_a_mid_sentence_position() {
        let message = "did not find key at line 3 column 1, while parsing a map at line 1 column 1";
        assert_eq!(
            strip_trailing_location(message),
            "did not find key at line 3 column 1, while parsing a map"
        );
        assert_eq!(
            strip_every_location(message),
            "did not find key, while parsing a map"
        );
        assert_eq!(strip_trailing_location("plain words"), "plain words");
        assert_eq!(strip_every_location("plain words"), "plain words");
    }
}
