//! `labcheck track [NAME]`: show the course track, or switch to another (saved in the profile).

use clap::Args;

use super::{CourseDirArg, emit, warn};
use crate::error::{Error, exit};
use crate::progress::Learner;

/// `labcheck track` options.
#[derive(Debug, Args, Clone)]
pub struct TrackArgs {
    /// The track to switch to; shows the current one when left out.
    pub name: Option<String>,

    #[command(flatten)]
    pub course: CourseDirArg,
}

/// Show or switch the track.
pub fn run(args: &TrackArgs) -> Result<u8, Error> {
    let course = args.course.load()?;
    let mut learner = Learner::load();
    warn(&learner.warnings);
    if let Some(name) = &args.name {
        let mut offered: Vec<&str> = course
            .modules
            .iter()
            .flat_map(|m| m.manifest.tracks.available.iter().map(String::as_str))
            .collect();
        offered.sort();
        offered.dedup();
        if !offered.contains(&name.as_str()) {
            return Err(Error::Usage(format!(
                "no module offers track `{name}`; choose one of: {}",
                offered.join(", ")
            )));
        }
        let Some(path) = learner.profile_path.clone() else {
            return Err(Error::Environment(
                "neither XDG_CONFIG_HOME nor HOME is set, so labcheck has nowhere to save your track"
                    .to_string(),
            ));
        };
        learner.profile.track = Some(name.clone());
        learner.profile.save(&path)?;
    }
    let mut out = match (&learner.profile.track, &args.name) {
        (Some(track), Some(_)) => {
            format!("your track is now {track} (saved; --track still overrides it for one run)\n")
        }
        (Some(track), None) => format!("your track: {track} (saved in your profile)\n"),
        (None, _) => {
            "your track: each module's default (switch with `labcheck track NAME`)\n".to_string()
        }
    };
    for module in &course.modules {
        let used = learner.track(module, None).unwrap_or("?");
        out.push_str(&format!(
            "  {:<12} {used}  (offers: {})\n",
            module.manifest.module,
            module.manifest.tracks.available.join(", ")
        ));
    }
    emit(&out);
    Ok(exit::PASS)
}
