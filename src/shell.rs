//! Words in command hints, quoted so a learner can paste the command as it is shown: a work dir
//! with a space (`/home/ana/my work`) must still `cd`. The one place hints quote anything.

use std::borrow::Cow;

/// One shell word: unchanged when it needs no quoting, else single-quoted (shlex's POSIX rules).
pub fn quote(word: &str) -> Cow<'_, str> {
    // `try_quote` refuses only a NUL byte, which no path or message of a lab holds; show the
    // word with the NUL dropped rather than something that would run differently.
    match shlex::try_quote(word) {
        Ok(quoted) => quoted,
        Err(_) => Cow::Owned(
            shlex::try_quote(&word.replace('\0', ""))
                .map(Cow::into_owned)
                .unwrap_or_default(),
        ),
    }
}

/// A path as shown in hints, quoted for a shell. A leading `~/` stays outside the quotes so the
/// shell still expands it (`~/'my work'/checkout-config`); everything else is quoted as needed.
pub fn quote_path(shown: &str) -> String {
    match shown.strip_prefix("~/") {
        Some(rest) if !rest.is_empty() => format!("~/{}", quote(rest)),
        _ => quote(shown).into_owned(),
    }
}

/// `cd <path>`, ready to paste.
pub fn cd(shown: &str) -> String {
    format!("cd {}", quote_path(shown))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn plain_paths_are_left_as_they_are() {
        assert_eq!(
            quote_path("~/work/checkout-config"),
            "~/work/checkout-config"
        );
        assert_eq!(
            quote_path("/srv/lab/checkout-config"),
            "/srv/lab/checkout-config"
        );
    }

    #[test]
    fn a_space_is_quoted_and_the_tilde_still_expands() {
        assert_eq!(
            quote_path("~/my work/checkout-config"),
            "~/'my work/checkout-config'"
        );
        assert_eq!(quote_path("/tmp/my work/x"), "'/tmp/my work/x'");
    }

    /// The quoted words, run by a real shell, come back as the original text.
    #[test]
    fn a_real_shell_reads_the_quoted_words_back() {
        for word in [
            "my work",
            "it's",
            "a\"b",
            "$HOME",
            "semi;colon",
            "back\\slash",
            "new\nline",
        ] {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", quote(word)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), word, "{word}");
        }
    }
}
