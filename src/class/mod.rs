//! The class wing: everything an instructor's class is, above the runner and through its public
//! API only (the runner never imports it). A [`ClassSession`] (`labcheck MODULE [STEP]
//! --kubeconfigs …`, `class serve`) loads the course once and seats every learner ([`Seat`]: their
//! copy of the steps with their names, their cluster, their work repos); [`Class::run`] runs every
//! seat once through the learner's own runner, as many at once as the [`gate`] lets in, and
//! [`causes`] groups the failures. The live page follows the same seats ([`follow`](mod@follow), through the
//! runner's one follow loop, the loop of `--watch`) into a [`Room`] that [`server`] serves.
//! Results are data here; the reporters print them (`report::matrix`, `report::class_page`).

pub mod causes;
pub mod follow;
pub mod gate;
pub mod own;
pub mod renames;
pub mod room;
pub mod seat;
pub mod server;
pub mod session;

pub use follow::{Following, follow};
pub use renames::Renames;
pub use room::{Desk, Origin, Reach, Recorded, Room, at_step, not_answering};
pub use seat::{Environment, LearnerRun, Lesson, Seat};
pub use session::{Class, ClassRun, ClassSession, Learners, Roster};
