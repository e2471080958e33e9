//! `path: helm/dev.yaml` or `path: [helm/dev.yaml, helm/prod.yaml]`: one value or a list of them.
//!
//! Written as a visitor, not as `#[serde(untagged)]`: an untagged enum buffers the value and, when
//! nothing matches, says only "data did not match any variant" without the reason. Here the value
//! is handed straight to `T`, so its own error ("expected a string") is raised while serde_yaml
//! still knows where the value is, and the author gets `file:line:col` and the reason.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};

/// One value or a list of values of `T`, read as the list (a single value is a list of one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneOrMany<T>(pub Vec<T>);

impl<T> OneOrMany<T> {
    /// The values, in the order written.
    pub fn into_vec(self) -> Vec<T> {
        self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OneOrManyVisitor(PhantomData))
    }
}

struct OneOrManyVisitor<T>(PhantomData<T>);

impl<T> OneOrManyVisitor<T> {
    fn one(value: T) -> OneOrMany<T> {
        OneOrMany(vec![value])
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrManyVisitor<T> {
    type Value = OneOrMany<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("one value or a list of them")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Vec::<T>::deserialize(SeqAccessDeserializer::new(seq)).map(OneOrMany)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Self::one)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        T::deserialize(text.into_deserializer()).map(Self::one)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
        T::deserialize(b.into_deserializer()).map(Self::one)
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Self::Value, E> {
        T::deserialize(i.into_deserializer()).map(Self::one)
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Self::Value, E> {
        T::deserialize(u.into_deserializer()).map(Self::one)
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Self::Value, E> {
        T::deserialize(f.into_deserializer()).map(Self::one)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        T::deserialize(().into_deserializer()).map(Self::one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Holder {
        path: OneOrMany<String>,
    }

    fn paths(text: &str) -> Result<Vec<String>, serde_yaml::Error> {
        serde_yaml::from_str::<Holder>(text).map(|h| h.path.into_vec())
    }

    #[test]
    fn one_value_and_a_list_read_as_a_list() {
        for (text, want) in [
            ("path: helm/dev.yaml\n", vec!["helm/dev.yaml"]),
            ("path: [a.yaml, b.yaml]\n", vec!["a.yaml", "b.yaml"]),
            ("path:\n  - a.yaml\n", vec!["a.yaml"]),
            ("path: []\n", vec![]),
        ] {
            match paths(text) {
                Ok(found) => assert_eq!(found, want, "{text}"),
                Err(e) => panic!("{text}: {e}"),
            }
        }
    }

    #[test]
    fn a_wrong_type_names_its_line_and_what_was_expected() {
        for (text, line, words) in [
            ("\npath: 5\n", 2, "expected a string"),
            ("\n\npath: true\n", 3, "expected a string"),
            ("path:\n  - a.yaml\n  - {x: 1}\n", 3, "expected a string"),
            ("path: {x: 1}\n", 1, "expected a string"),
            ("path: ~\n", 1, "expected a string"),
        ] {
            let error = match paths(text) {
                Ok(found) => panic!("{text}: read as {found:?}"),
                Err(e) => e,
            };
            assert_eq!(
                error.location().map(|l| l.line()),
                Some(line),
                "{text}: {error}"
            );
            let message = error.to_string();
            assert!(message.contains(words), "{text}: {message}");
            assert!(!message.contains("did not match any variant"), "{message}");
        }
    }
}
