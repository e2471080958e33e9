//! Check kind `manifests`: run `labcheck plan` and the migration-hook rules over manifests in a
//! work repo (plain files or rendered output stored there), so a step can say "your migration
//! hook is safe" and "web goes before the workers" before the learner pushes.

use serde::Deserialize;

use crate::checks::Context;
use crate::checks::yaml_value::file_error_outcome;
use crate::checks::{ClusterReads, KindReads, LearnerNames};
use crate::outcome::{DetailKind, Outcome};
use crate::plan::{FolderFile, Plan, PlanOptions, parse_folder_file, parse_manifests};
use crate::rules::{self, RULES};
use crate::yaml::one_or_many::OneOrMany;

/// Fields of a `manifests` check.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawManifestsSpec")]
pub struct ManifestsSpec {
    pub repo: String,
    /// Files or folders in the repo, read together as one sync.
    pub paths: Vec<String>,
    /// Rules that must find nothing.
    pub rules: Vec<String>,
    /// Objects (`Kind/name`) that must be applied in this order, each in a later step (phase,
    /// wave) than the one before: Argo CD waits between them.
    pub order: Vec<String>,
    /// The Application's destination namespace, for objects that name none.
    pub namespace: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifestsSpec {
    repo: String,
    /// One path or a list of them.
    path: OneOrMany<String>,
    #[serde(default)]
    rules: Vec<String>,
    #[serde(default)]
    order: Vec<String>,
    #[serde(default)]
    namespace: Option<String>,
}

impl TryFrom<RawManifestsSpec> for ManifestsSpec {
    type Error = String;

    fn try_from(raw: RawManifestsSpec) -> Result<Self, Self::Error> {
        let paths = raw.path.into_vec();
        if paths.is_empty() {
            return Err("`path` names no file or folder; give one or a list".to_string());
        }
        for path in &paths {
            if crate::paths::relative_inside(path).is_err() {
                return Err(format!(
                    "`{path}` leaves the repo; write it relative to the repo root without `..`"
                ));
            }
        }
        if raw.rules.is_empty() && raw.order.is_empty() {
            return Err(
                "a `manifests` check needs `rules: [...]`, `order: [...]` or both; without them it checks nothing"
                    .to_string(),
            );
        }
        let mut rules = raw.rules;
        if rules.iter().any(|r| r == "all") {
            rules = RULES.iter().map(|r| r.id.to_string()).collect();
        }
        for id in &rules {
            if rules::rule(id).is_none() {
                let known: Vec<&str> = RULES.iter().map(|r| r.id).collect();
                return Err(format!(
                    "unknown rule `{id}`; the rules are: all, {}",
                    known.join(", ")
                ));
            }
        }
        for item in &raw.order {
            if !item
                .split_once('/')
                .is_some_and(|(k, n)| !k.is_empty() && !n.is_empty())
            {
                return Err(format!(
                    "order item `{item}` is not `Kind/name` (e.g. Job/shop-migrate)"
                ));
            }
        }
        if raw.order.len() == 1 {
            return Err("`order` needs at least two objects".to_string());
        }
        Ok(ManifestsSpec {
            repo: raw.repo,
            paths,
            rules,
            order: raw.order,
            namespace: raw.namespace,
        })
    }
}

impl ManifestsSpec {
    /// Work repos this check reads.
    pub fn repos(&self) -> Vec<&str> {
        vec![self.repo.as_str()]
    }

    /// Decide the check.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        let (repo_dir, repo_shown) = ctx.repo_dir_shown(&self.repo);
        let mut objects = Vec::new();
        for path in &self.paths {
            let shown_path = format!("{repo_shown}/{}", path.trim_end_matches('/'));
            // A folder is read as Argo CD's repo server reads it (no subfolders, the skip
            // marker, YAML that is not an object left out), as `labcheck plan` does.
            let found = match ctx.repo_probe.manifests(&repo_dir, path, &ctx.paths) {
                Ok(found) => found,
                Err(error) => return file_error_outcome(ctx, &self.repo, &error, &shown_path),
            };
            if let Some((tool, file)) = &found.tool {
                return Outcome::fail(format!(
                    "{shown_path} is a {tool} folder ({file}): Argo CD renders it first"
                ))
                .with_hint(format!(
                    "check what it renders to, or point the check at plain manifests in {shown_path}"
                ));
            }
            let files = found.files;
            let base = if found.folder {
                format!("{}/", path.trim_end_matches('/'))
            } else {
                String::new()
            };
            if files.is_empty() {
                return Outcome::fail(format!("{shown_path} holds no .yaml, .yml or .json file"))
                    .with_hint(format!(
                        "put the manifests in {shown_path} as the course says"
                    ));
            }
            for (relative, text) in files {
                let shown = format!("{repo_shown}/{base}{relative}");
                let parsed = if base.is_empty() {
                    parse_manifests(&shown, &text)
                } else {
                    parse_folder_file(&shown, &text).map(|f| match f {
                        FolderFile::Objects(found) => found,
                        // A values file or a tool's config: Argo CD ignores it too.
                        FolderFile::NotKubernetes { .. } => Vec::new(),
                    })
                };
                match parsed {
                    Ok(found) => objects.extend(found),
                    Err(error) => {
                        return Outcome::fail(error.to_string()).with_hint(format!(
                            "fix {shown} there: Argo CD cannot apply it either"
                        ));
                    }
                }
            }
        }
        let plan = Plan::new(
            objects,
            Vec::new(),
            &PlanOptions {
                namespace: self.namespace.clone(),
                app: None,
                context: Vec::new(),
            },
        );
        let findings: Vec<rules::Finding> = rules::check(&plan)
            .into_iter()
            .filter(|f| self.rules.iter().any(|r| r == f.rule))
            .collect();
        let Some(first) = findings.first() else {
            // The rules explain more than the order does, so they speak first.
            if let Some(failure) = self.check_order(&plan) {
                return failure;
            }
            let mut parts = Vec::new();
            if !self.rules.is_empty() {
                parts.push(format!(
                    "none of {} rule(s) finds anything",
                    self.rules.len()
                ));
            }
            if !self.order.is_empty() {
                parts.push(format!("the order holds: {}", self.order_text(&plan)));
            }
            return Outcome::pass(format!(
                "{} object(s) in {}: {}",
                plan.objects.len(),
                self.paths.join(", "),
                parts.join("; ")
            ));
        };
        let listed: Vec<String> = findings
            .iter()
            .map(|f| format!("{} on {}", f.rule, f.object))
            .collect();
        let detail: Vec<String> = findings
            .iter()
            .map(|f| {
                format!(
                    "{} {} {} ({})\n  why: {}\n  fix: {}",
                    f.severity.as_str(),
                    f.rule,
                    f.object,
                    f.source,
                    f.reason,
                    f.fix
                )
            })
            .collect();
        Outcome::fail(format!(
            "{} finding(s): {}",
            findings.len(),
            listed.join(", ")
        ))
        .with_expected(format!("no finding of {}", self.rules.join(", ")))
        .with_diagnosis(first.reason.clone())
        .with_hint(format!(
            "{} ({}): {}",
            first.object, first.source, first.fix
        ))
        .with_detail(DetailKind::Text, detail.join("\n"))
    }

    fn order_text(&self, plan: &Plan) -> String {
        self.order
            .iter()
            .map(|item| match plan.step_of(item) {
                Some(i) => format!(
                    "{item} ({} wave {})",
                    plan.steps[i].phase, plan.steps[i].wave
                ),
                None => item.clone(),
            })
            .collect::<Vec<_>>()
            .join(" → ")
    }

    /// A failure when the listed objects are not each in a later step than the one before.
    fn check_order(&self, plan: &Plan) -> Option<Outcome> {
        let mut previous: Option<(&str, usize)> = None;
        for item in &self.order {
            let Some(step) = plan.step_of(item) else {
                let why = plan
                    .not_applied
                    .iter()
                    .find(|n| plan.objects[n.object].reference() == *item)
                    .map(|n| format!(" ({})", n.why))
                    .or_else(|| {
                        plan.on_failure
                            .iter()
                            .any(|t| plan.object(t).reference() == *item)
                            .then(|| {
                                " (a SyncFail hook: it runs only when a sync fails)".to_string()
                            })
                    })
                    .unwrap_or_default();
                let present = plan.objects.iter().any(|o| o.reference() == *item);
                let summary = if present {
                    format!("{item} is not applied by a sync{why}")
                } else {
                    format!("there is no {item} in {}", self.paths.join(", "))
                };
                return Some(
                    Outcome::fail(summary)
                        .with_expected(format!("in this order: {}", self.order.join(" → ")))
                        .with_detail(DetailKind::Text, plan_lines(plan)),
                );
            };
            if let Some((before, before_step)) = previous
                && step <= before_step
            {
                let at = |i: usize| format!("{} wave {}", plan.steps[i].phase, plan.steps[i].wave);
                let relation = if step == before_step {
                    "in the same step as"
                } else {
                    "before"
                };
                return Some(
                    Outcome::fail(format!(
                        "{item} ({}) is applied {relation} {before} ({}); it must come after it",
                        at(step),
                        at(before_step)
                    ))
                    .with_expected(format!("in this order: {}", self.order.join(" → ")))
                    .with_actual(self.order_text(plan))
                    .with_detail(DetailKind::Text, plan_lines(plan)),
                );
            }
            previous = Some((item, step));
        }
        None
    }
}

/// The plan as short lines, for a failure's detail.
fn plan_lines(plan: &Plan) -> String {
    plan.steps
        .iter()
        .map(|s| {
            let names: Vec<String> = s.tasks.iter().map(|t| plan.object(t).reference()).collect();
            format!("{} wave {}: {}", s.phase, s.wave, names.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl KindReads for ManifestsSpec {
    fn cluster_reads(&self) -> ClusterReads {
        ClusterReads::none()
    }

    fn rename_for_learner(&mut self, _names: &mut dyn LearnerNames) {}

    fn can_fail(&self) -> crate::checks::can_fail::Causes {
        // A rule's finding or an object out of order: the detail shows the plan; what to change
        // is the course's to say.
        crate::checks::can_fail::Causes::new().silent(crate::outcome::CauseId::Failed)
    }
}
