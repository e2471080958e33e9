//! The only code that touches the outside world: git repositories and the Kubernetes API.
//! Everything here reads; nothing writes.

pub mod api_path;
pub mod argocd_dir;
pub mod cluster;
pub mod files;
pub mod git;
pub mod machine;
pub mod manifests;
pub mod repos;
pub mod tape;
