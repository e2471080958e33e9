//! Where labcheck keeps its own files: the XDG state dir for progress, the XDG config dir for the
//! profile. These are the only files labcheck ever writes.

use std::path::PathBuf;

use crate::error::Error;

/// `$XDG_STATE_HOME/labcheck`, else `~/.local/state/labcheck`.
pub fn state_dir() -> Result<PathBuf, Error> {
    xdg("XDG_STATE_HOME", ".local/state")
}

/// `$XDG_CONFIG_HOME/labcheck`, else `~/.config/labcheck`.
pub fn config_dir() -> Result<PathBuf, Error> {
    xdg("XDG_CONFIG_HOME", ".config")
}

fn xdg(var: &str, fallback: &str) -> Result<PathBuf, Error> {
    // The spec says a relative value is invalid and must be ignored.
    if let Some(dir) = std::env::var_os(var).map(PathBuf::from)
        && dir.is_absolute()
    {
        return Ok(dir.join("labcheck"));
    }
    crate::paths::home_dir()
        .map(|home| home.join(fallback).join("labcheck"))
        .ok_or_else(|| {
            Error::Environment(format!(
                "neither {var} nor HOME is set, so labcheck has nowhere to keep your progress"
            ))
        })
}
