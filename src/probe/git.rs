//! Reading the learner's work repositories with git2 (read-only).
