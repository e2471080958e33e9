//! `labcheck plan`: the order Argo CD will apply a set of manifests in, as gitops-engine computes
//! it, with the steps it waits between and what it waits for. Pure: objects in, a plan out.
//!
//! Sources: gitops-engine `pkg/sync/sync_tasks.go` (order), `sync_task.go`, `sync_phase.go`,
//! `sync_context.go` (tasks, prune waves), `hook/` (hook types, Helm translation, delete
//! policies), `syncwaves/` (waves), `health/` (what it waits for).

pub mod app;
mod duplicates;
pub mod health;
pub mod input;
pub mod load;
pub mod object;
pub mod order;
pub mod refs;
pub mod scope;
#[cfg(test)]
mod tests;
mod waits;

use serde::Serialize;

use crate::sync_settings::InForce;

pub use app::{AppSettings, NotTaken};
pub use duplicates::Duplicate;
use duplicates::duplicates;
pub use load::{FolderFile, LoadError, parse_folder_file, parse_manifests};
pub use object::{DeletePolicy, DeletionHook, Object, Phase, Source};
pub use order::{Moved, Task};
pub use waits::unawaited_in_one_step;
use waits::waits;

/// How to plan.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// The Application's destination namespace: Argo CD puts objects that name none there (and
    /// so a Namespace of that name moves in front of them).
    pub namespace: Option<String>,
    /// The Application the manifests are synced by, when known: its sync options apply.
    pub app: Option<AppSettings>,
    /// Objects read only to learn about the sync (the Application itself, an argocd-cm from
    /// another folder), with why they are not part of it. An argocd-cm among them still adds
    /// health checks: it configures Argo CD, whichever app syncs it.
    pub context: Vec<(Object, String)>,
}

/// What Argo CD waits for before it goes on from a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "until", rename_all = "snake_case")]
pub enum Wait {
    /// A hook that must finish (Job complete, Pod succeeded).
    Completes { object: String },
    /// A resource with a health check that must become Healthy.
    Healthy { object: String, means: &'static str },
    /// A custom resource with a health check (one Argo CD ships, or one argocd-cm adds).
    HealthyCustom { object: String, means: String },
    /// A pruned object that must be gone before the next step starts.
    Deleted { object: String },
}

/// One (phase, wave) step: Argo CD applies all its tasks, then waits before the next step.
#[derive(Debug, Clone)]
pub struct Step {
    pub phase: Phase,
    pub wave: i64,
    /// In the order Argo CD runs them (`runTasks`): prunes first, then the applies in sort order.
    pub tasks: Vec<Task>,
    pub waits: Vec<Wait>,
    /// Custom resources of the step Argo CD would wait for if it had a health check, and why it
    /// has none.
    pub not_awaited: Vec<(String, String)>,
    /// The last step of the sync.
    pub last: bool,
}

impl Step {
    /// Hooks Argo CD deletes before it creates them again (delete policy `BeforeHookCreation`,
    /// when a copy from an earlier sync still exists). They go after the prunes and before any
    /// apply of the step; the step's applies wait until they are gone.
    pub fn deleted_before_creation<'p>(&'p self, plan: &'p Plan) -> Vec<&'p Task> {
        self.tasks
            .iter()
            .filter(|t| {
                t.hook
                    && !t.prune
                    && plan
                        .object(t)
                        .delete_policies()
                        .contains(&DeletePolicy::BeforeHookCreation)
            })
            .collect()
    }

    /// The applies, grouped by consecutive kind: each group is applied at once, and the next kind
    /// starts only when the whole group is applied.
    pub fn apply_groups<'p>(&'p self, plan: &'p Plan) -> Vec<Vec<&'p Task>> {
        let mut groups: Vec<Vec<&Task>> = Vec::new();
        for task in self.tasks.iter().filter(|t| !t.prune) {
            let kind = &plan.object(task).kind;
            match groups.last_mut() {
                Some(group) if group.first().is_some_and(|t| &plan.object(t).kind == kind) => {
                    group.push(task)
                }
                _ => groups.push(vec![task]),
            }
        }
        groups
    }
}

/// An object the sync will not apply, and why.
#[derive(Debug, Clone)]
pub struct NotApplied {
    pub object: usize,
    pub why: String,
}

/// Whether Argo CD waits for child Applications' health, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppHealth {
    /// An `argocd-cm` in the input adds a health check for `argoproj.io/Application`.
    Checked { source: Source, key: &'static str },
    /// No such `argocd-cm` in the input: Applications have no health check (Argo CD 1.8+).
    NotChecked,
}

/// The `argocd-cm` key that gives Applications a health check (Argo CD's health docs).
pub const APP_HEALTH_KEY: &str = "resource.customizations.health.argoproj.io_Application";

/// A child Application of an app of apps, followed to its own folder (`plan --follow`).
#[derive(Debug, Clone)]
pub struct Followed {
    pub name: String,
    /// Where the child Application is written.
    pub source: Source,
    /// Its folder, as shown.
    pub folder: Option<String>,
    /// Its plan and (with `--rules`) the rules' findings, or why it was not followed.
    pub outcome: Result<(Box<Plan>, Option<Vec<crate::findings::Finding>>), String>,
}

/// The whole plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub objects: Vec<Object>,
    /// Live objects that are no longer in git (`--pruned`), referred to by prune tasks.
    pub pruned: Vec<Object>,
    /// PreSync, Sync and PostSync steps in order.
    pub steps: Vec<Step>,
    /// SyncFail hooks: run only after the sync has failed, in this order.
    pub on_failure: Vec<Task>,
    /// PreDelete/PostDelete hooks: run only when the Application is deleted.
    pub on_deletion: Vec<(usize, DeletionHook)>,
    pub not_applied: Vec<NotApplied>,
    /// gitops-engine's `multiStep`: the first and the last task (SyncFail hooks and prunes
    /// included) differ in phase or wave. Only then does it wait for plain resources' health.
    pub multi_step: bool,
    /// Objects written more than once; only the last copy is in `objects`' tasks.
    pub duplicates: Vec<Duplicate>,
    /// Set when the manifests hold an `Application`: whether a wave of them waits for health.
    pub app_health: Option<AppHealth>,
    /// The Application the plan is for, when known.
    pub app: Option<AppSettings>,
    /// Why that Application was taken (filled by whoever chose it).
    pub app_why: Option<String>,
    /// Applications in the input the plan is not for, each with why not and how to take it.
    pub not_taken: Vec<NotTaken>,
    /// What Argo CD resolves before it renders the Application's sources (a floating
    /// `targetRevision`, sources the plan does not hold), as notes.
    pub app_notes: Vec<String>,
    /// The index in `objects` of the Namespace `CreateNamespace=true` adds, if it does.
    pub created_namespace: Option<usize>,
    /// Files in the input Argo CD does not read, and why (filled by whoever read the files).
    pub skipped_files: Vec<(String, String)>,
    /// Objects read only to learn about the sync, and why they are not part of it.
    pub context: Vec<(Object, String)>,
    /// Child Applications followed to their folders (`--follow`).
    pub children: Vec<Followed>,
}

/// Seconds Argo CD pauses between steps by default (`ARGOCD_SYNC_WAVE_DELAY`).
pub const WAVE_DELAY_SECONDS: u64 = 2;

/// Whether an `argocd-cm` in the input gives `argoproj.io/Application` a health check.
fn app_health(objects: &[Object]) -> AppHealth {
    for o in objects {
        let found = health::configured(std::slice::from_ref(o));
        if let Some((_, key)) = found.iter().find(|(gk, _)| gk == "argoproj.io/Application") {
            return AppHealth::Checked {
                source: o.source.clone(),
                key: if key == APP_HEALTH_KEY {
                    APP_HEALTH_KEY
                } else {
                    "resource.customizations"
                },
            };
        }
    }
    AppHealth::NotChecked
}

impl Plan {
    /// Plan the sync of `objects` (what git holds), pruning `pruned` (live, no longer in git).
    pub fn new(mut objects: Vec<Object>, pruned: Vec<Object>, options: &PlanOptions) -> Plan {
        let destination = options
            .namespace
            .clone()
            .or_else(|| {
                options
                    .app
                    .as_ref()
                    .and_then(|a| a.destination_namespace.clone())
            })
            .unwrap_or_default();
        let declared = scope::declared(&objects);
        let (losers, duplicates) = duplicates(&objects, &destination, &declared);
        for object in objects.iter_mut() {
            if scope::cluster_scoped(object, &declared) {
                // Argo CD drops it (`state.go:583-586`). gitops-engine later sets the destination
                // on it for its own bookkeeping (`sync_context.go:1044-1051`), which the sort
                // sees (`order::sort` is given the destination), but it is never applied there.
                object.namespace = String::new();
            } else if object.namespace.is_empty() {
                object.namespace = destination.clone();
            }
        }
        let app = options.app.as_ref();
        // `CreateNamespace=true` adds a PreSync task for the destination namespace unless the
        // manifests hold it (`sync_context.go:1188-1239`, `controller/sync.go:412-414`).
        let mut created_namespace = None;
        if let Some(app) = app
            && app.has("CreateNamespace=true")
            && !destination.is_empty()
            && !objects
                .iter()
                .any(|o| o.kind == "Namespace" && o.group().is_empty() && o.name == destination)
        {
            created_namespace = Some(objects.len());
            objects.push(Object {
                source: app.object.source.clone(),
                api_version: "v1".to_string(),
                kind: "Namespace".to_string(),
                name: destination.clone(),
                generate_name: false,
                namespace: String::new(),
                annotations: Default::default(),
                body: serde_yaml::Value::Null,
            });
        }
        let everything: Vec<Object> = objects
            .iter()
            .chain(options.context.iter().map(|(o, _)| o))
            .cloned()
            .collect();
        let configured = health::configured(&everything);
        let app_health = objects
            .iter()
            .any(is_application)
            .then(|| app_health(&everything));
        let mut tasks = Vec::new();
        let mut on_deletion = Vec::new();
        let mut not_applied = Vec::new();
        for (index, object) in objects.iter().enumerate() {
            if losers.contains(&index) {
                not_applied.push(NotApplied {
                    object: index,
                    why: "written again later in the input: Argo CD keeps only the last copy"
                        .to_string(),
                });
                continue;
            }
            if created_namespace == Some(index) {
                tasks.push(Task {
                    object: index,
                    phase: Phase::PreSync,
                    wave: 0,
                    hook: false,
                    prune: false,
                    moved: None,
                });
                continue;
            }
            let phases = object.sync_phases();
            for phase in &phases {
                tasks.push(Task {
                    object: index,
                    phase: *phase,
                    wave: object.wave(),
                    hook: object.is_hook(),
                    prune: false,
                    moved: None,
                });
            }
            let deletion = object.deletion_hooks();
            for hook in &deletion {
                on_deletion.push((index, *hook));
            }
            if phases.is_empty() && deletion.is_empty() {
                let why = if object.skipped() {
                    "`argocd.argoproj.io/hook: Skip`: Argo CD never applies it and leaves it out of sync and health".to_string()
                } else {
                    let words = object.unknown_hook_words();
                    format!(
                        "a hook without a phase Argo CD knows ({}): it is never applied",
                        if words.is_empty() {
                            "no hook type".to_string()
                        } else {
                            words.join(", ")
                        }
                    )
                };
                not_applied.push(NotApplied { object: index, why });
            }
        }
        for (index, object) in pruned.iter().enumerate() {
            // A live hook is not pruned by the sync; Skip'd objects are not managed.
            if object.is_hook() || object.skipped() {
                continue;
            }
            tasks.push(Task {
                object: index,
                phase: Phase::Sync,
                wave: object.wave(),
                hook: false,
                prune: true,
                moved: None,
            });
        }
        let lookup = |t: &Task| pick(&objects, &pruned, t);
        // `PruneLast=true` of the Application counts for every prune (`sync_context.go:1166-1170`).
        let app_options: &[String] = app.map(|a| a.sync_options.as_slice()).unwrap_or(&[]);
        order::mirror_prune_waves(&mut tasks[..], &|t| {
            t.prune
                && InForce::of(app_options, &lookup(t).sync_option_words())
                    .prune_last
                    .is_some()
        });
        order::sort(&mut tasks, &lookup, &destination);
        // `syncTasks.multiStep()` looks at the whole sorted list, SyncFail hooks included.
        let multi_step = match (tasks.first(), tasks.last()) {
            (Some(first), Some(last)) => first.phase != last.phase || first.wave != last.wave,
            _ => false,
        };

        let (on_failure, main): (Vec<Task>, Vec<Task>) =
            tasks.into_iter().partition(|t| t.phase == Phase::SyncFail);
        let mut steps: Vec<Step> = Vec::new();
        for task in main {
            match steps.last_mut() {
                Some(step) if step.phase == task.phase && step.wave == task.wave => {
                    step.tasks.push(task)
                }
                _ => steps.push(Step {
                    phase: task.phase,
                    wave: task.wave,
                    tasks: vec![task],
                    waits: Vec::new(),
                    not_awaited: Vec::new(),
                    last: false,
                }),
            }
        }
        let count = steps.len();
        for (i, step) in steps.iter_mut().enumerate() {
            // runTasks prunes first, then creates; each part keeps the sorted order.
            let (prunes, applies): (Vec<Task>, Vec<Task>) = std::mem::take(&mut step.tasks)
                .into_iter()
                .partition(|t| t.prune);
            step.tasks = prunes.into_iter().chain(applies).collect();
            step.last = i + 1 == count;
            (step.waits, step.not_awaited) = waits(step, multi_step, &configured, &lookup);
        }
        Plan {
            objects,
            pruned,
            steps,
            on_failure,
            on_deletion,
            not_applied,
            multi_step,
            duplicates,
            app_health,
            app: options.app.clone(),
            app_why: None,
            not_taken: Vec::new(),
            app_notes: Vec::new(),
            created_namespace,
            skipped_files: Vec::new(),
            context: options.context.clone(),
            children: Vec::new(),
        }
    }

    /// The object a task applies or prunes.
    pub fn object(&self, task: &Task) -> &Object {
        pick(&self.objects, &self.pruned, task)
    }

    /// The step (index) in which the object `Kind/name` is first applied in the sync.
    pub fn step_of(&self, reference: &str) -> Option<usize> {
        self.steps.iter().position(|s| {
            s.tasks
                .iter()
                .any(|t| !t.prune && self.object(t).reference() == reference)
        })
    }

    /// Whether the object at `index` is applied (not a losing duplicate, not skipped).
    pub fn applies(&self, index: usize) -> bool {
        self.steps
            .iter()
            .flat_map(|s| s.tasks.iter())
            .chain(self.on_failure.iter())
            .any(|t| !t.prune && t.object == index)
    }

    /// How Argo CD writes the object of `task` when not with a plain client-side apply: the
    /// Application's `Replace=true`/`ServerSideApply=true` or the object's own
    /// (`sync_context.go:1317-1322`, `:1434-1435`; `ServerSideApply=false` on the object wins).
    pub fn apply_mode(&self, task: &Task) -> Option<&'static str> {
        if task.prune {
            return None;
        }
        let in_force = self.in_force(self.object(task));
        if in_force.replace.is_some() {
            return Some("replaced (Replace=true: kubectl replace/create, not apply)");
        }
        if in_force.server_side_apply.is_some() {
            return Some("server-side apply (ServerSideApply=true)");
        }
        None
    }

    /// The sync options in force for `object` in this sync: the Application's and its own
    /// annotation's together. The plan shows these and every rule reads these.
    pub fn in_force(&self, object: &Object) -> InForce {
        let app_options: &[String] = self
            .app
            .as_ref()
            .map(|a| a.sync_options.as_slice())
            .unwrap_or(&[]);
        InForce::of(app_options, &object.sync_option_words())
    }

    /// Objects the sync applies (each once, the last copy of a duplicate), in input order.
    pub fn applied_objects(&self) -> impl Iterator<Item = &Object> {
        self.objects
            .iter()
            .enumerate()
            .filter(|(i, _)| self.applies(*i))
            .map(|(_, o)| o)
    }
}

fn is_application(o: &Object) -> bool {
    o.group() == "argoproj.io" && o.kind == "Application"
}

fn pick<'o>(objects: &'o [Object], pruned: &'o [Object], task: &Task) -> &'o Object {
    if task.prune {
        &pruned[task.object]
    } else {
        &objects[task.object]
    }
}
