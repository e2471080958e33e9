//! The one integration-test binary: each module tests one part through the real binary.

mod file_checks;
