//! The one integration-test binary: labcheck end to end.

mod cluster_checks;
