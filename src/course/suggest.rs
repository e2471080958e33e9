//! "Did you mean": the closest name to a misspelt module, step or check id.

/// How alike two names must be (Jaro–Winkler, 0..1) to be offered; clap offers from 0.7 on its
/// flags, names here are longer and share prefixes (`step-`), so the bar is higher.
const ALIKE: f64 = 0.8;

/// The candidate closest to `typed`, if one is close enough to be what was meant. A number is
/// part of a name's identity, not a typo: `step-9` is not offered `step-1`, nor `module-12`
/// `module-10`.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = typed.to_lowercase();
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    candidates
        .into_iter()
        .filter(|c| digits(c) == digits(&typed))
        .map(|c| (strsim::jaro_winkler(&typed, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= ALIKE)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// ` (did you mean `x`?)`, or nothing, to follow "no module `y`".
pub fn did_you_mean<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_names_find_what_was_meant_and_strangers_find_nothing() {
        let steps = [
            "step-1",
            "step-2",
            "step-4",
            "break-it/break",
            "break-it/fix",
        ];
        let cases = [
            ("step4", Some("step-4")),
            ("Step-2", Some("step-2")),
            ("stpe-1", Some("step-1")),
            ("break-it/fx", Some("break-it/fix")),
            ("quiz", None),
            ("step-9", None),
            ("step-44", None),
            ("deploy", None),
        ];
        for (typed, meant) in cases {
            assert_eq!(closest(typed, steps), meant, "{typed}");
        }
        let modules = ["module-10", "module-11"];
        assert_eq!(closest("module10", modules), Some("module-10"));
        assert_eq!(closest("modul-11", modules), Some("module-11"));
        assert_eq!(closest("module-12", modules), None);
        let checks = ["release-pushed", "tag-670", "hook-failed"];
        assert_eq!(closest("release-push", checks), Some("release-pushed"));
        assert_eq!(closest("tag670", checks), Some("tag-670"));
    }
}
