//! The learner's profile under the XDG config dir: the track they chose with `labcheck track`.
//!
//! ```text
//! format → labcheck-profile/v1
//! track → kind
//! ```

use std::path::{Path, PathBuf};

use super::dirs;
use crate::error::Error;

const HEADER: &str = "format\tlabcheck-profile/v1";

/// What the learner chose once and keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// The track `labcheck track NAME` saved; `--track` overrides it for one run.
    pub track: Option<String>,
}

impl Profile {
    /// The profile file under the XDG config dir.
    pub fn default_path() -> Result<PathBuf, Error> {
        Ok(dirs::config_dir()?.join("profile"))
    }

    /// Read the profile; a missing or unreadable one is an empty profile (it only holds
    /// preferences, so a damaged file must not stop a check).
    pub fn load(path: &Path) -> Profile {
        // Only a regular file: a FIFO there would block the read.
        let Ok(text) = crate::paths::read_regular_text(path, 1024 * 1024) else {
            return Profile::default();
        };
        let mut profile = Profile::default();
        for line in text.lines() {
            if let Some(("track", track)) = line.split_once('\t')
                && !track.trim().is_empty()
            {
                profile.track = Some(track.trim().to_string());
            }
        }
        profile
    }

    /// Save it (temporary file, then rename).
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        let mut text = format!("{HEADER}\n");
        if let Some(track) = &self.track {
            text.push_str(&format!("track\t{track}\n"));
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, &text)?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| {
            Error::Environment(format!(
                "cannot save your profile to {}: {e}",
                path.display()
            ))
        })
    }
}
