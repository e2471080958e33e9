//! Reading YAML the way the course's tools do, in one place: Helm's YAML 1.1 reader ([`helm`]),
//! the path grammar of check files ([`path`]), value equality and rendering ([`value`]), where a
//! parse error is ([`location`]) and the cheap looks at text before any parser runs ([`guard`]);
//! a course author's file read with its positions ([`course_file`]).
//!
//! Layering: this module imports nothing from `checks`, `course`, `plan` or `run`; they import it.

pub mod course_file;
pub mod fields;
pub mod guard;
pub mod helm;
pub mod location;
pub mod one_or_many;
pub mod path;
pub mod pattern;
pub mod value;
