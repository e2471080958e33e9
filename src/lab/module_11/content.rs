//! Module 11's files: the shop-config repo of a Laravel shop, as the team left it (a migration
//! hook with every pitfall) and as each step leaves it, as the course's fixtures declare them
//! (`modules/module-11/fixtures/`, read at compile time). All names and values are the lab's own.

/// The lab file `modules/module-11/lab/$path` (a work repo's file before the module's first step).
macro_rules! lab {
    ($path:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/modules/module-11/lab/",
            $path
        ))
    };
}

/// The fixture file `modules/module-11/fixtures/$path`.
macro_rules! fixture {
    ($path:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/modules/module-11/fixtures/",
            $path
        ))
    };
}

/// Commit messages the course uses, so `git` checks can look for them.
pub mod messages {
    /// Step 1's commit.
    pub const STEP_1: &str = "shop: a migration hook that is safe to run";
    /// Step 2's commit.
    pub const STEP_2: &str = "shop: config in PreSync, before the migration";
    /// Step 3's commit.
    pub const STEP_3: &str = "shop: web first, then workers, then a smoke test";
    /// Step 4's commit.
    pub const STEP_4: &str = "shop-dev: no automatic retry while migrations run as hooks";
}

/// `manifests/config.yaml` as the team left it: in the Sync phase, wave -1.
pub const CONFIG_FRESH: &str = lab!("shop-config/manifests/config.yaml");

/// `manifests/config.yaml` after step 2: PreSync hooks in wave -1, before the migration (wave 0).
pub const CONFIG_PRESYNC: &str = fixture!("files/config-presync.yaml");

/// `manifests/migrate-job.yaml` as the team left it: every pitfall of a migration hook.
pub const MIGRATE_FRESH: &str = lab!("shop-config/manifests/migrate-job.yaml");

/// `manifests/migrate-job.yaml` after step 1: safe to run as a PreSync hook.
pub const MIGRATE_SAFE: &str = fixture!("files/migrate-job-safe.yaml");

/// `manifests/smoke-test.yaml`, added in step 3.
pub const SMOKE_TEST: &str = fixture!("files/smoke-test.yaml");

/// `manifests/web.yaml`: the web Deployment and its Service (wave 0 after step 3).
pub fn web(solved: bool) -> String {
    after_step(
        solved,
        fixture!("files/web-wave-0.yaml"),
        lab!("shop-config/manifests/web.yaml"),
    )
}

/// `manifests/workers.yaml`: Horizon and the scheduler (wave 1 after step 3).
pub fn workers(solved: bool) -> String {
    after_step(
        solved,
        fixture!("files/workers-wave-1.yaml"),
        lab!("shop-config/manifests/workers.yaml"),
    )
}

/// `argocd/shop-dev.yaml`: the Application, retrying 5 times until step 4 sets `limit: 0`.
/// Taking the block out would not do: an automated sync without one is retried 5 times.
pub fn application(retry: bool) -> String {
    after_step(
        !retry,
        fixture!("files/shop-dev-retry-0.yaml"),
        lab!("shop-config/argocd/shop-dev.yaml"),
    )
}

/// The file as the step leaves it once `done`, else as the team left it.
fn after_step(done: bool, after: &str, before: &str) -> String {
    if done { after } else { before }.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_3_puts_web_in_wave_0_and_workers_in_wave_1() {
        assert!(!web(false).contains("sync-wave"), "{}", web(false));
        assert!(web(true).contains("argocd.argoproj.io/sync-wave: \"0\""));
        assert_eq!(
            workers(true)
                .matches("argocd.argoproj.io/sync-wave: \"1\"")
                .count(),
            2,
            "Horizon and the scheduler: {}",
            workers(true)
        );
    }

    #[test]
    fn step_4_stops_the_retries_instead_of_dropping_the_block() {
        assert!(application(true).contains("limit: 5"));
        assert!(application(false).contains("limit: 0"));
    }
}
