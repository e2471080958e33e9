//! A class's failures grouped by what caused them: one group per (step, check, cause id), with the
//! learners in it and the hint shown once. Learners are grouped by the cause id their check set
//! (or the runner's generic one), never by the text of a hint, which names each learner's paths;
//! within a group, by the parts of their hint with their own names lifted out as what they stand
//! for ([`Shared`]: their work dir, a renamed namespace). The parts stay data: the reporters word
//! them (`report::hint`), as they word every hint, and fill in the names.

use std::collections::BTreeMap;

use serde::Serialize;

use super::own::Shared;
use super::seat::LearnerRun;
use crate::causes::{Cause, CauseId};
use crate::outcome::{HintPart, Status};

/// Learners who share one cause at one check.
#[derive(Debug, Clone, Serialize)]
pub struct CauseGroup {
    pub step: String,
    pub check: String,
    pub title: String,
    pub status: Status,
    pub cause: String,
    pub learners: Vec<String>,
    /// What labcheck saw, when it reads the same for every learner of the group but for their
    /// own names; otherwise each learner's report has their own. Serialized by a reporter, in
    /// its words.
    #[serde(skip)]
    pub summary: Option<Shared>,
    /// Each distinct hint once (the same but for the learners' own names), and who got it.
    pub hints: Vec<SharedHint>,
}

/// One hint, as parts with each learner's own names lifted out, and the learners of a group who
/// were given it. Serialized without its parts: a reporter adds their words.
#[derive(Debug, Clone, Serialize)]
pub struct SharedHint {
    #[serde(skip)]
    pub parts: Vec<HintPart<Shared>>,
    pub learners: Vec<String>,
}

/// A learner whose work repos were not read: told once, not by each check of each repo.
#[derive(Debug, Clone, Serialize)]
pub struct WithoutWorkDir {
    pub learner: String,
    /// How many checks could not be checked for that.
    pub checks: usize,
    /// The hint of the first of those checks, as it was given (the learner's own report), for
    /// a reporter to word; serialized without it.
    #[serde(skip)]
    pub hint: Vec<HintPart>,
}

/// The class's causes: learners without a work dir first, then one group per (step, check,
/// cause) in course order, so a hint's "(see above)" — the earlier check to fix first — points
/// at a group that is above it.
#[derive(Debug, Clone, Serialize)]
pub struct ClassCauses {
    pub without_work_dir: Vec<WithoutWorkDir>,
    pub groups: Vec<CauseGroup>,
}

impl ClassCauses {
    /// Whether every learner passed (or skipped) everything.
    pub fn is_empty(&self) -> bool {
        self.without_work_dir.is_empty() && self.groups.is_empty()
    }
}

/// Group every failure and could-not-check of `runs` by (step, check, cause).
pub fn group(runs: &[LearnerRun]) -> ClassCauses {
    struct Building {
        order: (usize, usize),
        group: CauseGroup,
        summaries: Vec<Shared>,
    }
    // Keyed by the cause itself (its id and object), never by its text.
    let mut groups: BTreeMap<(String, String, Cause, Status), Building> = BTreeMap::new();
    let mut without_work_dir = Vec::new();
    for run in runs {
        let mut unchecked = 0;
        let mut unchecked_hint: Option<&[HintPart]> = None;
        for (s, step) in run.steps.iter().enumerate() {
            for (c, check) in step.checks.iter().enumerate() {
                let o = &check.outcome;
                if !matches!(o.status, Status::Fail | Status::Error) {
                    continue;
                }
                let generic = match o.status {
                    Status::Fail => CauseId::Failed,
                    _ => CauseId::CouldNotCheck,
                };
                let cause = o.cause.clone().unwrap_or_else(|| generic.cause());
                if cause.is(CauseId::NoWorkDir) {
                    unchecked += 1;
                    unchecked_hint =
                        unchecked_hint.or(Some(o.hints.as_slice()).filter(|h| !h.is_empty()));
                    continue;
                }
                let key = (step.step.clone(), check.id.clone(), cause.clone(), o.status);
                let building = groups.entry(key).or_insert_with(|| Building {
                    order: (s, c),
                    group: CauseGroup {
                        step: step.step.clone(),
                        check: check.id.clone(),
                        title: check.title.clone(),
                        status: o.status,
                        cause: cause.to_string(),
                        learners: Vec::new(),
                        summary: None,
                        hints: Vec::new(),
                    },
                    summaries: Vec::new(),
                });
                let group = &mut building.group;
                group.learners.push(run.learner.clone());
                building.summaries.push(Shared::of(&o.summary, &run.own));
                if !o.hints.is_empty() {
                    let parts: Vec<HintPart<Shared>> = o
                        .hints
                        .iter()
                        .map(|p| p.map_texts(&|t: &String| Shared::of(t, &run.own)))
                        .collect();
                    match group.hints.iter_mut().find(|h| h.parts == parts) {
                        Some(same) => same.learners.push(run.learner.clone()),
                        None => group.hints.push(SharedHint {
                            parts,
                            learners: vec![run.learner.clone()],
                        }),
                    }
                }
            }
        }
        if unchecked > 0 {
            without_work_dir.push(WithoutWorkDir {
                learner: run.learner.clone(),
                checks: unchecked,
                hint: unchecked_hint.unwrap_or_default().to_vec(),
            });
        }
    }
    let mut building: Vec<Building> = groups.into_values().collect();
    building.sort_by(|a, b| {
        (
            a.order,
            std::cmp::Reverse(a.group.learners.len()),
            &a.group.cause,
        )
            .cmp(&(
                b.order,
                std::cmp::Reverse(b.group.learners.len()),
                &b.group.cause,
            ))
    });
    let groups = building
        .into_iter()
        .map(|mut b| {
            let first = b.summaries.first().cloned();
            if b.summaries.iter().all(|s| Some(s) == first.as_ref()) {
                b.group.summary = first;
            }
            b.group
        })
        .collect();
    ClassCauses {
        without_work_dir,
        groups,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::class::own::{OwnName, Piece, Slot};
    use crate::outcome::{Cause, CauseId, Outcome};
    use crate::run::CheckReport;

    use crate::run::fixtures::{check, step};

    /// A learner with work dir `/class/NAME` and one step of `checks`.
    fn learner(name: &str, checks: Vec<CheckReport>) -> LearnerRun {
        let work_dir = PathBuf::from(format!("/class/{name}"));
        let step = step("step-4", "Release", checks);
        LearnerRun {
            learner: name.to_string(),
            status: step.status,
            steps: vec![step],
            own: vec![OwnName {
                theirs: work_dir.display().to_string(),
                slot: Slot::WorkDir,
            }],
            work_dir: Some(work_dir),
        }
    }

    /// `cd`, the learner's work dir and `rest`, as a group holds it.
    fn cd_in_work_dir(rest: &str) -> Shared {
        Shared(vec![
            Piece::Text("cd ".to_string()),
            Piece::Own(Slot::WorkDir),
            Piece::Text(rest.to_string()),
        ])
    }

    fn words(text: &str) -> Shared {
        Shared(vec![Piece::Text(text.to_string())])
    }

    fn unpushed(name: &str) -> Outcome {
        Outcome::fail("main is 1 commit ahead of origin/main")
            .with_hint(format!("cd /class/{name}/checkout-config && git push"))
            .with_cause(Cause::new(CauseId::NotPushed))
    }

    /// (check, cause, learners) of each group, in order.
    type Keys = Vec<(String, String, Vec<String>)>;

    fn keys(causes: &ClassCauses) -> Keys {
        causes
            .groups
            .iter()
            .map(|g| (g.check.clone(), g.cause.clone(), g.learners.clone()))
            .collect()
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn one_cause_with_different_paths_is_one_group_with_one_hint() {
        let runs = [
            learner("bob", vec![check("pushed", unpushed("bob"))]),
            learner("erin", vec![check("pushed", unpushed("erin"))]),
        ];
        let causes = group(&runs);
        assert_eq!(
            keys(&causes),
            [(
                "pushed".into(),
                "not-pushed".into(),
                names(&["bob", "erin"])
            )]
        );
        let hints = &causes.groups[0].hints;
        assert_eq!(hints.len(), 1);
        assert_eq!(
            hints[0].parts,
            [HintPart::Check {
                text: cd_in_work_dir("/checkout-config && git push")
            }]
        );
        assert_eq!(
            causes.groups[0].summary,
            Some(words("main is 1 commit ahead of origin/main"))
        );
    }

    #[test]
    fn the_same_check_failing_for_different_causes_is_a_group_per_cause() {
        let cases: [(&str, Vec<LearnerRun>, Keys); 3] = [
            (
                "two causes, the larger group first",
                vec![
                    learner(
                        "a",
                        vec![check(
                            "synced",
                            Outcome::fail("x").with_cause(Cause::new(CauseId::NoSync)),
                        )],
                    ),
                    learner(
                        "b",
                        vec![check(
                            "synced",
                            Outcome::fail("y")
                                .with_cause(Cause::about(CauseId::HookResult, "checkout-migrate")),
                        )],
                    ),
                    learner(
                        "c",
                        vec![check(
                            "synced",
                            Outcome::fail("z")
                                .with_cause(Cause::about(CauseId::HookResult, "checkout-migrate")),
                        )],
                    ),
                ],
                vec![
                    (
                        "synced".into(),
                        "hook-result:checkout-migrate".into(),
                        names(&["b", "c"]),
                    ),
                    ("synced".into(), "no-sync".into(), names(&["a"])),
                ],
            ),
            (
                "a fail and a could-not-check without causes get the generic ones",
                vec![
                    learner("a", vec![check("synced", Outcome::fail("x"))]),
                    learner(
                        "b",
                        vec![check("synced", Outcome::could_not_check("unreachable"))],
                    ),
                ],
                vec![
                    ("synced".into(), "could-not-check".into(), names(&["b"])),
                    ("synced".into(), "failed".into(), names(&["a"])),
                ],
            ),
            (
                "course order: an earlier check's groups come first",
                vec![learner(
                    "a",
                    vec![
                        check("pushed", unpushed("a")),
                        check(
                            "synced",
                            Outcome::fail("x")
                                .with_cause(Cause::about(CauseId::BlockedBy, "pushed")),
                        ),
                    ],
                )],
                vec![
                    ("pushed".into(), "not-pushed".into(), names(&["a"])),
                    ("synced".into(), "blocked-by:pushed".into(), names(&["a"])),
                ],
            ),
        ];
        for (case, runs, expected) in cases {
            assert_eq!(keys(&group(&runs)), expected, "{case}");
        }
    }

    #[test]
    fn a_learner_without_a_work_dir_is_told_once_not_per_check() {
        let unread = || {
            Outcome::could_not_check(crate::checks::context::NO_WORK_DIR)
                .with_hint("give --work-dirs")
                .with_cause(CauseId::NoWorkDir.cause())
        };
        let runs = [learner(
            "dave",
            vec![
                check("tag", unread()),
                check("pushed", unread()),
                check("synced", Outcome::pass("synced")),
            ],
        )];
        let causes = group(&runs);
        assert!(causes.groups.is_empty(), "{:?}", causes.groups);
        assert_eq!(causes.without_work_dir.len(), 1);
        assert_eq!(causes.without_work_dir[0].learner, "dave");
        assert_eq!(causes.without_work_dir[0].checks, 2);
        assert_eq!(
            causes.without_work_dir[0].hint,
            [HintPart::Check {
                text: "give --work-dirs".to_string()
            }]
        );
    }

    #[test]
    fn hints_that_differ_beyond_the_placeholders_are_each_shown_with_their_learners() {
        let runs = [
            learner("bob", vec![check("pushed", unpushed("bob"))]),
            learner(
                "erin",
                vec![check(
                    "pushed",
                    unpushed("erin").with_hint(
                        "cd /class/erin/checkout-config && git pull --rebase && git push",
                    ),
                )],
            ),
        ];
        let hints = &group(&runs).groups[0].hints;
        assert_eq!(hints.len(), 2);
        assert_eq!(
            hints[1].parts,
            [HintPart::Check {
                text: cd_in_work_dir("/checkout-config && git pull --rebase && git push")
            }]
        );
        assert_eq!(hints[1].learners, names(&["erin"]));
    }

    /// The bug `str::replace` had: a learner whose Application is named like a piece of a word
    /// (learner `ed`, `--app-template '{learner}'`) had every "pushed" and "synced" of their hint
    /// turned into "push<learner>" and "sync<learner>", so they were grouped apart from a learner
    /// with the same hint. Their names count only where they stand whole.
    #[test]
    fn a_learner_named_like_part_of_a_word_shares_the_hint_of_the_others() {
        let slot = Slot::Renamed {
            template: "{learner}".to_string(),
            slot: "{app}",
            course: "checkout-dev".to_string(),
        };
        // Their Application is named for them alone: the app template has no `{app}`.
        let not_synced = |app: &str| LearnerRun {
            own: vec![OwnName {
                theirs: app.to_string(),
                slot: slot.clone(),
            }],
            ..learner(
                app,
                vec![check(
                    "synced",
                    Outcome::fail(format!("{app} is not synced to the pushed commit"))
                        .with_hint(format!("pushed: sync it with `argocd app sync {app}`"))
                        .with_cause(Cause::new(CauseId::NoSync)),
                )],
            )
        };
        let runs = [not_synced("ed"), not_synced("zoe")];
        let app = Piece::Own(slot.clone());
        let causes = group(&runs);
        assert_eq!(causes.groups.len(), 1, "{:#?}", causes.groups);
        let hints = &causes.groups[0].hints;
        assert_eq!(hints.len(), 1, "{hints:#?}");
        assert_eq!(hints[0].learners, names(&["ed", "zoe"]));
        assert_eq!(
            hints[0].parts,
            [HintPart::Check {
                text: Shared(vec![
                    Piece::Text("pushed: sync it with `argocd app sync ".to_string()),
                    app.clone(),
                    Piece::Text("`".to_string()),
                ])
            }]
        );
        assert_eq!(
            causes.groups[0].summary,
            Some(Shared(vec![
                app,
                Piece::Text(" is not synced to the pushed commit".to_string())
            ]))
        );
    }
}
