//! Every reason a check can give for failing or not being able to check, declared once: its
//! stable id (the wire form in JSON, JUnit, TAP, progress and course files), one line saying what
//! it means, whether waiting can fix it, and a hint that fits every state with that cause, if one
//! does. Checks, the runner and the class grouping name causes by [`CauseId`]; nothing compares
//! cause text. `docs/causes.md` is generated from this table (a test keeps it so).

use serde::Serialize;

/// Whether waiting (for Argo CD, a sync, a Job, the API server) can turn this cause into a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// The cluster may still be moving towards the state the check wants: the runner may wait,
    /// while the check says the failure is still in progress.
    MayFix,
    /// Only the learner's action (a commit, a push, a sync, a change of setup) changes it.
    WontFix,
}

/// The table: `Name = "id" [about "what follows the colon"], waiting, [hint "…"];` with a one-line
/// doc comment. `about` marks a cause written with the object it is about (`job-missing:NAME`).
macro_rules! causes {
    ($(
        #[doc = $doc:literal]
        $name:ident = $id:literal $(about $about:literal)?, $waiting:ident $(, hint $hint:literal)?;
    )*) => {
        /// A cause, by name. Its id (the wire form) is [`CauseId::id`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum CauseId {
            $(#[doc = $doc] $name,)*
        }

        impl CauseId {
            /// Every cause, in the table's order.
            pub const ALL: &'static [CauseId] = &[$(CauseId::$name,)*];

            /// The stable id, as reports and course files write it (`not-pushed`).
            pub fn id(self) -> &'static str {
                match self { $(CauseId::$name => $id,)* }
            }

            /// What the cause means, in one line.
            pub fn doc(self) -> &'static str {
                match self { $(CauseId::$name => $doc.trim(),)* }
            }

            /// What the part after the colon names, for a cause about one object.
            pub fn about(self) -> Option<&'static str> {
                match self { $(CauseId::$name => causes!(@opt $($about)?),)* }
            }

            /// Whether waiting can fix it.
            pub fn waiting(self) -> Waiting {
                match self { $(CauseId::$name => Waiting::$waiting,)* }
            }

            /// A hint true of every state with this cause, for a check that gives none.
            pub fn default_hint(self) -> Option<&'static str> {
                match self { $(CauseId::$name => causes!(@opt $($hint)?),)* }
            }
        }
    };
    (@opt) => { None };
    (@opt $x:literal) => { Some($x) };
}

causes! {
    // ---- the learner's work repos (git)
    /// There is no work dir to read this learner's repos from (a class run without `--work-dirs`).
    NoWorkDir = "no-work-dir", WontFix;
    /// The work repo's folder does not exist.
    RepoMissing = "repo-missing", WontFix;
    /// The work repo's folder exists but is not a git repository.
    NotARepo = "not-a-repo", WontFix;
    /// The work repo is a shallow clone, so the history a check needs may be missing.
    ShallowClone = "shallow-clone", WontFix;
    /// The work repo is a bare repository, with no working tree to check.
    BareRepo = "bare-repo", WontFix;
    /// The work repo's `.git` file points at a git dir that no longer exists.
    GitdirGone = "gitdir-gone", WontFix;
    /// The work repo belongs to another user and is not in git's `safe.directory`.
    RepoNotOwned = "repo-not-owned", WontFix;
    /// An object git needs in the work repo is missing or broken.
    RepoDamaged = "repo-damaged", WontFix;
    /// git could not read the work repo for another reason.
    RepoUnreadable = "repo-unreadable", WontFix;
    /// A merge, rebase, cherry-pick or revert is still in progress in the work repo.
    OperationInProgress = "operation-in-progress", WontFix;
    /// The work repo is on another branch than the step's.
    WrongBranch = "wrong-branch", WontFix;
    /// The work repo's HEAD is detached, not on a branch.
    DetachedHead = "detached-head", WontFix;
    /// A submodule of the work repo has changes that are not committed.
    SubmoduleDirty = "submodule-dirty" about "the submodule's path", WontFix;
    /// The work repo has changes that are not committed.
    UncommittedChanges = "uncommitted-changes", WontFix;
    /// The branch has no commit yet.
    NoCommits = "no-commits", WontFix;
    /// The work repo has no remote `origin` to push to.
    NoRemote = "no-remote", WontFix;
    /// Commits are on the branch but not pushed (it is ahead of its upstream, or has none).
    NotPushed = "not-pushed", WontFix;
    /// The branch is behind its upstream: someone pushed after the learner's last pull.
    BehindUpstream = "behind-upstream", WontFix;
    /// The branch and its upstream have diverged.
    Diverged = "diverged", WontFix;
    /// HEAD is not the step's commit.
    WrongHeadCommit = "wrong-head-commit", WontFix;
    /// No pushed commit matches what the step's commit should say.
    CommitMissing = "commit-missing", WontFix;
    /// The commit of an earlier step, which this one builds on, is not there.
    EarlierStepMissing = "earlier-step-missing", WontFix,
        hint "do the earlier step that makes that commit (and push it) first";
    /// The file was changed in the working tree but the change is not committed.
    NotCommitted = "not-committed", WontFix;
    /// No commit on the branch changes the file the step changes.
    FileUnchanged = "file-unchanged", WontFix;
    /// No commit makes the change the step asks for.
    ChangeNotMade = "change-not-made", WontFix;
    /// The step's change was made, and a later commit undid it.
    ChangeUndone = "change-undone", WontFix;
    /// The commit to undo is not undone yet.
    NotReverted = "not-reverted", WontFix;
    /// The commit to undo is undone only in part.
    PartlyReverted = "partly-reverted", WontFix;
    /// No commit made the change to undo, so there is nothing to revert yet.
    NothingToRevert = "nothing-to-revert", WontFix;
    /// A YAML key was written with dots in its name instead of nested.
    FlatKey = "flat-key", WontFix;
    /// A path's list selector (`containers[name=checkout]`) matched no item, or several.
    SelectorMiss = "selector-miss", WontFix;
    /// The learner's file lacks the keys or lines the course asks for (nothing there to correct yet).
    MissingInFile = "missing-in-file", WontFix;
    /// The learner's file has the keys or lines the course asks for, with other values (a slip to correct).
    DiffersInFile = "differs-in-file", WontFix;
    /// The learner's file has keys or lines the course does not want (something to take out).
    ExtraInFile = "extra-in-file", WontFix;
    /// The file to read is not a regular file (a pipe, a device).
    NotARegularFile = "not-a-regular-file", WontFix;
    /// The history of a repo a stage's sequence reads could not be read.
    HistoryUnreadable = "history-unreadable" about "the repo", WontFix;
    /// The break of a break-it exercise is still in place.
    BreakNotUndone = "break-not-undone", WontFix;
    /// Neither progress nor history shows the break of a break-it exercise happened.
    BreakNotSeen = "break-not-seen", WontFix;

    // ---- replaying a bundle
    /// A replayed run asked something the learner's bundle holds no answer to (a bundle of another step, or made by another labcheck).
    NotInBundle = "not-in-bundle", WontFix,
        hint "ask the learner for a new bundle of this step (`labcheck bundle MODULE STEP -o FILE`), made with this labcheck";

    // ---- reading the cluster
    /// No cluster is configured (no kubeconfig, no in-cluster account).
    ClusterNotConfigured = "cluster-not-configured", WontFix;
    /// The API server could not be reached.
    ClusterUnreachable = "cluster-unreachable", WontFix;
    /// The API server did not accept the credentials.
    ClusterUnauthorized = "cluster-unauthorized", WontFix;
    /// The user may not read what the check reads.
    ClusterForbidden = "cluster-forbidden", WontFix;
    /// The cluster does not serve the API the check reads (e.g. Argo CD is not installed).
    ResourceNotServed = "resource-not-served", WontFix;
    /// The namespace the check reads does not exist.
    NamespaceMissing = "namespace-missing", WontFix;
    /// The API server answered with a server error.
    ApiServerError = "api-server-error", WontFix;
    /// The answer was not a Kubernetes API answer.
    ApiGarbage = "api-garbage", WontFix;
    /// An object did not have the shape Kubernetes gives it.
    ApiUnreadableObject = "api-unreadable-object", WontFix;
    /// The API server's address redirected elsewhere.
    ApiRedirected = "api-redirected", WontFix;
    /// The API server asked labcheck to slow down.
    ApiRateLimited = "api-rate-limited", WontFix;
    /// An answer stopped arriving.
    ApiStalled = "api-stalled", WontFix;
    /// An answer did not end.
    ApiEndlessAnswer = "api-endless-answer", WontFix;
    /// The API server's certificate is not signed by the kubeconfig's CA.
    ClusterUntrustedCertificate = "cluster-untrusted-certificate", WontFix;

    // ---- objects, Jobs and logs
    /// The object does not exist.
    ObjectMissing = "object-missing" about "KIND/NAME", WontFix;
    /// The object exists, and the course wants it gone.
    ObjectExists = "object-exists" about "KIND/NAME", WontFix;
    /// A field of the object does not hold what the course wants.
    FieldMismatch = "field-mismatch" about "KIND/NAME", WontFix;
    /// The Job exists, and the course wants it gone.
    JobExists = "job-exists" about "the Job", WontFix;
    /// The Job completed, and the course wants another state.
    JobComplete = "job-complete" about "the Job", WontFix;
    /// The Job failed.
    JobFailed = "job-failed" about "the Job", WontFix;
    /// The Job is suspended.
    JobSuspended = "job-suspended" about "the Job", WontFix;
    /// The Job is still running.
    JobRunning = "job-running" about "the Job", MayFix;
    /// The Job does not exist.
    JobMissing = "job-missing" about "the Job", MayFix;
    /// The Job is not a hook of the app's last sync.
    JobNotAHookOfSync = "job-not-a-hook-of-sync" about "the Job", MayFix;
    /// The Job was created by an earlier sync than the one of the learner's commit.
    JobFromEarlierSync = "job-from-earlier-sync" about "the Job", MayFix;
    /// The Job whose log is read does not exist.
    LogsMissing = "logs-missing" about "the Job", MayFix;
    /// The Job's pods are gone, and their logs with them.
    LogsPodsGone = "logs-pods-gone" about "the Job", WontFix;
    /// The Job's pod has no log yet.
    LogsNotYet = "logs-not-yet" about "the Job", MayFix;
    /// The log is too long to read whole, and its tail does not say.
    LogTooLong = "log-too-long" about "the Job", WontFix;
    /// The log did not end within the request's bound, and what was read does not settle it.
    LogUnended = "log-unended" about "the Job", WontFix;
    /// The log does not contain what the course expects.
    LogMismatch = "log-mismatch" about "the Job", MayFix;
    /// A container cannot start or keeps crashing (the reason: CrashLoopBackOff, ImagePullBackOff…).
    PodStuck = "pod-stuck" about "the container's waiting reason", WontFix;
    /// A Deployment's rollout passed its progress deadline.
    ProgressDeadlineExceeded = "progress-deadline-exceeded" about "the Deployment", WontFix;

    // ---- Argo CD Applications and their syncs
    /// Argo CD has no Application of that name where labcheck looked.
    AppMissing = "app-missing" about "the Application", WontFix;
    /// The Application is in another namespace than the one labcheck looked in.
    AppInOtherNamespace = "app-in-other-namespace" about "its namespace", WontFix;
    /// The Application is not managed by an app of apps.
    NoParentApp = "no-parent-app" about "the Application", WontFix;
    /// The learner's commit is on a branch the Application does not follow.
    PushedElsewhere = "pushed-elsewhere" about "the branch", WontFix;
    /// The Application's revisions could not be matched to its sources.
    RevisionsUnreadable = "revisions-unreadable", MayFix;
    /// No source of the Application is the learner's repo.
    AppNotFollowingRepo = "app-not-following-repo", WontFix;
    /// Argo CD has not seen the learner's push yet.
    NotSeenYet = "not-seen-yet", MayFix;
    /// The last sync is not of the learner's pushed commit.
    SyncNotOfPush = "sync-not-of-push", MayFix;
    /// The last operation synced only some resources, so the full sync's record is gone.
    SelectiveSync = "selective-sync", WontFix;
    /// The Application's sync status is not the one the course wants.
    SyncStatus = "sync-status" about "the sync status", MayFix;
    /// The Application is Degraded.
    AppDegraded = "app-degraded" about "the first resource not Healthy", MayFix;
    /// The Application is not Healthy (and not Degraded).
    AppNotHealthy = "app-not-healthy" about "the first resource not Healthy", MayFix;
    /// The Application's health is not the one the course wants, with no resource named.
    AppHealth = "app-health" about "the health", MayFix;
    /// No sync of the Application has run.
    NoSync = "no-sync", WontFix;
    /// Which sync a Job belongs to cannot be told.
    SyncUnknown = "sync-unknown", WontFix;
    /// The last sync's phase is not the one the course wants.
    SyncPhase = "sync-phase" about "the phase", MayFix;
    /// The last sync's message does not match.
    SyncMessage = "sync-message", MayFix;
    /// The last sync did not run the hook.
    HookNotRun = "hook-not-run" about "the hook", MayFix;
    /// The sync failed and ran no SyncFail hook: syncing again runs none either.
    SyncfailHookMissing = "syncfail-hook-missing" about "the hook", WontFix;
    /// Argo CD could not create the hook: the API server refused its manifest, so it never ran.
    HookRefused = "hook-refused" about "the hook", WontFix;
    /// The hook ended with another result than the course wants.
    HookResult = "hook-result" about "the hook", MayFix;
    /// The last sync did not apply the resource.
    NotApplied = "not-applied" about "the resource", MayFix;
    /// The last sync ran with `ApplyOutOfSyncOnly=true` and skipped the resource, already Synced.
    ApplyOutOfSyncOnly = "apply-out-of-sync-only" about "the resource", WontFix;
    /// The last sync applied the resource out of the course's order.
    WrongOrder = "wrong-order" about "the resource", WontFix;
    /// The sync failed an attempt and Argo CD is retrying it.
    Retrying = "retrying", MayFix;
    /// The sync was ended by `argocd app terminate-op`, and its running hooks deleted.
    OperationTerminated = "operation-terminated", MayFix;
    /// The controller's sync timeout ended the sync, and its running hooks deleted.
    OperationTimedOut = "operation-timed-out", MayFix;
    /// An older sync is retrying while Argo CD targets the learner's push (it refuses a new sync).
    RetryingOtherRevision = "retrying-other-revision", MayFix;
    /// The last sync used the apply strategy, which applies the resources and runs no hooks.
    ApplyStrategySync = "apply-strategy-sync", WontFix;
    /// The last operation was a dry run: it applied nothing and ran no hook.
    DryRun = "dry-run", WontFix;
    /// The last sync applied local files (`argocd app sync --local`), not a commit in git.
    LocalSync = "local-sync", WontFix;
    /// The sync asked about may have fallen out of the Application's history (`revisionHistoryLimit`).
    HistoryTrimmed = "history-trimmed", WontFix;

    // ---- the runner
    /// The check counts only after an earlier check (`after:`), which failed.
    BlockedBy = "blocked-by" about "the earlier check's id", WontFix;
    /// The event this check depends on (`after:`) has not happened.
    EventMissing = "event-missing" about "the event check's id", WontFix;
    /// The event this check depends on (`after:`) could not be checked.
    EventUnknown = "event-unknown" about "the event check's id", WontFix;
    /// The check failed while the cluster is still moving (no cause of its own).
    InProgress = "in-progress", MayFix;
    /// The check failed (no cause of its own).
    Failed = "failed", WontFix;
    /// The check could not check (no cause of its own).
    CouldNotCheck = "could-not-check", WontFix;
}

impl CauseId {
    /// The cause named `id` (without an object), if the table declares it.
    pub fn from_id(id: &str) -> Option<CauseId> {
        CauseId::ALL.iter().copied().find(|c| c.id() == id)
    }

    /// The cause itself, about no object.
    pub fn cause(self) -> Cause {
        Cause::new(self)
    }
}

/// `docs/causes.md`: the table as a reader wants it, generated from the declarations above (a
/// test keeps the file equal to this).
pub fn markdown() -> String {
    let mut out = String::from(
        "# Causes\n\n\
         <!-- Generated from src/causes.rs by `cargo test --lib causes`; edit the table there. -->\n\n\
         Every failure and every \"could not check\" carries one of these cause ids (`cause` in JSON,\n\
         YAML, JUnit and TAP, and the groups of a class run). A cause about one object is written\n\
         `id:object` (`job-missing:checkout-migrate`). A course file keys a check's hint by these ids\n\
         (`hint: { by_cause: { not-seen-yet: … } }`, see [check-files.md](check-files.md#hints)), and\n\
         loading the course refuses one not listed here. \"Waiting can fix it\": labcheck waits (up to\n\
         the check's `wait:` or `--wait`) only for a failure still in progress whose cause says yes.\n\n\
         | cause | means | waiting can fix it | hint when the check gives none |\n\
         |---|---|---|---|\n",
    );
    for cause in CauseId::ALL {
        let id = match cause.about() {
            Some(about) => format!("`{}:…` ({about})", cause.id()),
            None => format!("`{}`", cause.id()),
        };
        let waits = match cause.waiting() {
            Waiting::MayFix => "yes",
            Waiting::WontFix => "no",
        };
        let hint = cause.default_hint().unwrap_or("");
        out.push_str(&format!("| {id} | {} | {waits} | {hint} |\n", cause.doc()));
    }
    out
}

/// A cause as an outcome carries it: a declared id, optionally followed by `:` and the object it
/// is about (`hook-result:checkout-migrate`). Written as that text in every report; never parsed
/// from a summary or hint.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cause {
    /// The wire form, kept whole for reports and for ordering.
    text: String,
    id: CauseId,
}

impl Cause {
    /// A cause with no object (`not-pushed`).
    pub fn new(id: CauseId) -> Self {
        Cause {
            text: id.id().to_string(),
            id,
        }
    }

    /// A cause about one object (`hook-result:checkout-migrate`).
    pub fn about(id: CauseId, object: impl AsRef<str>) -> Self {
        Cause {
            text: format!("{}:{}", id.id(), object.as_ref()),
            id,
        }
    }

    /// A cause as reports write it (`hook-result:checkout-migrate`), if its id is declared.
    pub fn parse(text: &str) -> Option<Cause> {
        let (id, object) = match text.split_once(':') {
            Some((id, object)) => (id, Some(object)),
            None => (text, None),
        };
        let id = CauseId::from_id(id)?;
        Some(match object {
            Some(object) => Cause::about(id, object),
            None => Cause::new(id),
        })
    }

    /// Which declared cause this is.
    pub fn id(&self) -> CauseId {
        self.id
    }

    /// Whether this is `id` (about any object).
    pub fn is(&self, id: CauseId) -> bool {
        self.id == id
    }

    /// Whether this is `id` about `object`, or about any object when `object` is `None`.
    pub fn is_about(&self, id: CauseId, object: Option<&str>) -> bool {
        self.is(id) && object.is_none_or(|object| self.object() == Some(object))
    }

    /// The object it is about, if any.
    pub fn object(&self) -> Option<&str> {
        self.text.split_once(':').map(|(_, object)| object)
    }

    /// The id as written in reports.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_id_is_lowercase_words_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for cause in CauseId::ALL {
            let id = cause.id();
            assert!(
                !id.is_empty()
                    && id.split('-').all(|w| !w.is_empty()
                        && w.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())),
                "{id}"
            );
            assert!(seen.insert(id), "{id} is declared twice");
            assert_eq!(CauseId::from_id(id), Some(*cause));
            assert!(!cause.doc().is_empty(), "{id} has no doc line");
        }
    }

    /// Set `LABCHECK_WRITE_DOCS=1` to rewrite the file after changing the table.
    #[test]
    fn the_docs_list_of_causes_is_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/causes.md");
        let generated = markdown();
        if std::env::var_os("LABCHECK_WRITE_DOCS").is_some() {
            std::fs::write(path, &generated).expect("docs/causes.md written");
        }
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            on_disk == generated,
            "docs/causes.md is not the cause table: run `LABCHECK_WRITE_DOCS=1 cargo test --lib causes` and commit it"
        );
    }

    #[test]
    fn a_cause_reads_as_its_id_and_object_in_reports() {
        let cases = [
            (CauseId::NotPushed.cause(), "not-pushed", None),
            (
                Cause::about(CauseId::HookResult, "checkout-migrate"),
                "hook-result:checkout-migrate",
                Some("checkout-migrate"),
            ),
        ];
        for (cause, text, object) in cases {
            assert_eq!(cause.as_str(), text);
            assert_eq!(cause.object(), object);
            assert_eq!(
                serde_json::to_string(&cause).unwrap(),
                format!("\"{text}\"")
            );
        }
    }

    #[test]
    fn a_cause_is_about_the_object_named_or_any_when_none_is() {
        let migrate = Cause::about(CauseId::HookResult, "checkout-migrate");
        let bare = CauseId::HookResult.cause();
        let cases = [
            // (the cause a check gave, the id and object asked about, is it?)
            (&migrate, CauseId::HookResult, None, true),
            (
                &migrate,
                CauseId::HookResult,
                Some("checkout-migrate"),
                true,
            ),
            (&migrate, CauseId::HookResult, Some("smoke-test"), false),
            (&migrate, CauseId::JobFailed, None, false),
            (&bare, CauseId::HookResult, None, true),
            (&bare, CauseId::HookResult, Some("checkout-migrate"), false),
        ];
        for (cause, id, object, is) in cases {
            assert_eq!(
                cause.is_about(id, object),
                is,
                "{cause} about {id:?} {object:?}"
            );
        }
    }
}
