//! Check-file fields that are read by hand, with the visitor each would otherwise write again:
//! a map read key by key ([`FromMap`]: a condition sits flattened among a kind's keys and unknown
//! keys are still refused, which serde's `flatten` cannot do) and a text parsed as it is read
//! ([`FromText`]: a path, a regex, a glob). Both raise their errors inside the deserializer, so
//! serde_yaml still knows where the value is and the author gets `file:line:col`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, Visitor};

/// A value read from a map, one key at a time.
pub trait FromMap: Sized {
    /// What the map should hold, for serde's "invalid type: …, expected …" message.
    const EXPECTING: &'static str;

    /// Read the keys; an unknown key, a missing one or a bad value is an error raised while the
    /// deserializer still knows where it is (so the author gets `file:line:col`).
    fn from_map<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

/// `impl Deserialize` for a type through its [`FromMap`] or [`FromText`] impl (the glue each
/// would otherwise write again).
macro_rules! deserialize_via {
    (FromMap, $ty:ty) => {
        deserialize_via!(@read deserialize_map, $ty);
    };
    (FromText, $ty:ty) => {
        deserialize_via!(@read deserialize_text, $ty);
    };
    (@read $read:ident, $ty:ty) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::yaml::fields::$read(deserializer)
            }
        }
    };
}
pub(crate) use deserialize_via;

/// Deserialize a [`FromMap`] value: the body of its `Deserialize::deserialize`.
pub fn deserialize_map<'de, T: FromMap, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(MapVisitor(PhantomData))
}

struct MapVisitor<T>(PhantomData<T>);

impl<'de, T: FromMap> Visitor<'de> for MapVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_map(map)
    }
}

/// A value written in a check file as one text and parsed as it is read (a path, a regex).
pub trait FromText: Sized {
    /// What the text should be, for serde's "invalid type: …, expected …" message.
    const EXPECTING: &'static str;

    /// Parse the text; the error is the whole message the author sees after `file:line:col: `.
    fn from_text(text: &str) -> Result<Self, String>;
}

/// Deserialize a [`FromText`] value: the body of its `Deserialize::deserialize`.
pub fn deserialize_text<'de, T: FromText, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    deserializer.deserialize_str(TextVisitor(PhantomData))
}

struct TextVisitor<T>(PhantomData<T>);

impl<T: FromText> Visitor<'_> for TextVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        T::from_text(text).map_err(E::custom)
    }
}
