//! A map in a check file read key by key. Several kinds read their fields themselves instead of
//! with `#[derive(Deserialize)]` (a condition sits flattened among other keys and unknown keys are
//! still refused, which serde's `flatten` cannot do); this holds the visitor they would each
//! write again.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};

/// A value read from a map, one key at a time.
pub trait FromMap: Sized {
    /// What the map should hold, for serde's "invalid type: …, expected …" message.
    fn expecting(f: &mut fmt::Formatter) -> fmt::Result;

    /// Read the keys; an unknown key, a missing one or a bad value is an error raised while the
    /// deserializer still knows where it is (so the author gets `file:line:col`).
    fn from_map<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

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
        T::expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_map(map)
    }
}
