//! The one integration-test binary: each file is one area.

mod kubectl;
mod serve_api;
