//! Reading YAML the way the course's tools do, in one place: Helm's YAML 1.1 reader ([`helm`]),
//! the path grammar of check files ([`path`]) and the walk along a path ([`lookup`]), value equality and rendering ([`value`]), where a
//! parse error is ([`location`]), the cheap looks at text before any parser runs ([`guard`]), and
//! a course author's file read into typed data with `file:line:col` errors ([`course_file`]). The
//! check-file field types shared by the kinds live here too: a regex ([`pattern`]), one value or a
//! list ([`one_or_many`]) and the visitors for fields read by hand ([`fields`]).
//!
//! Layering: this module imports nothing from `checks`, `course`, `plan` or `run`; they import it.

pub mod course_file;
pub mod edit;
pub mod fields;
pub mod guard;
pub mod helm;
pub mod location;
pub mod lookup;
pub mod one_or_many;
pub mod path;
pub mod pattern;
#[cfg(test)]
pub mod testing;
pub mod value;
