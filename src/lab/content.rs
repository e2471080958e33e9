//! The files of module 10's work repos at each point of the course, as the course's fixtures
//! declare them (`modules/module-10/fixtures/`, read at compile time). Tests that edit a repo by
//! hand write these, so what they write is what the course test vouches for.

/// The lab file `modules/module-10/lab/$path` (a work repo's file before the module's first step).
macro_rules! lab {
    ($path:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/modules/module-10/lab/",
            $path
        ))
    };
}

/// The fixture file `modules/module-10/fixtures/$path`.
macro_rules! fixture {
    ($path:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/modules/module-10/fixtures/",
            $path
        ))
    };
}

/// `argocd-platform/argocd/values.yaml` before step 1.
pub const PLATFORM_VALUES_FRESH: &str = lab!("argocd-platform/argocd/values.yaml");

/// `argocd-platform/argocd/values.yaml` after step 1 (also the reference repo's
/// `platform/argocd/values.yaml`).
const PLATFORM_VALUES_SOLVED: &str = fixture!("files/platform-values-step-1.yaml");

/// Step 1 typed with a mistake in the Lua script (`obj.status.health` for `….health.status`).
const PLATFORM_VALUES_TYPO: &str = fixture!("files/platform-values-typo.yaml");

/// The health-check block step 1 adds under `cm:`, after the banner lines.
pub const PLATFORM_HEALTH_BLOCK: &str = r#"    # Module 10: Applications get a health status, so sync waves between
    # Applications (app of apps) wait for the previous wave to be Healthy.
    resource.customizations.health.argoproj.io_Application: |
      hs = {}
      hs.status = "Progressing"
      hs.message = ""
      if obj.status ~= nil and obj.status.health ~= nil then
        hs.status = obj.status.health.status
        if obj.status.health.message ~= nil then
          hs.message = obj.status.health.message
        end
      end
      return hs
"#;

/// `argocd-platform/argocd/values.yaml` after step 1.
pub fn platform_values_solved() -> String {
    PLATFORM_VALUES_SOLVED.to_string()
}

/// Step 1 with a typo in the Lua script, as the `typo-in-lua` fixture writes it.
pub fn platform_values_typo() -> String {
    PLATFORM_VALUES_TYPO.to_string()
}

/// `argocd-platform/apps/projects.yaml`: AppProjects go first.
pub const PLATFORM_APP_PROJECTS: &str = lab!("argocd-platform/apps/projects.yaml");

/// `argocd-platform/apps/namespaces.yaml`: namespaces right after the projects.
pub const PLATFORM_APP_NAMESPACES: &str = lab!("argocd-platform/apps/namespaces.yaml");

/// `argocd-platform/apps/checkout-dev.yaml`: team-checkout's app, default wave 0.
pub const PLATFORM_APP_CHECKOUT: &str = lab!("argocd-platform/apps/checkout-dev.yaml");

/// `checkout-config/helm/dev.yaml` before step 2.
pub const CHECKOUT_DEV_FRESH: &str = lab!("checkout-config/helm/dev.yaml");

/// `checkout-config/helm/dev.yaml` after step 2 (and again after step 5's revert).
pub fn checkout_dev_hooks_on() -> String {
    fixture!("files/dev-step-2.yaml").to_string()
}

/// `checkout-config/helm/dev.yaml` after step 4: 6.7.0 with a migration that fails.
pub fn checkout_dev_broken_migration() -> String {
    fixture!("files/dev-step-4.yaml").to_string()
}

/// `checkout-config/helm/dev.yaml` after the break-it exercise's "break" stage.
pub fn checkout_dev_smoke_test_503() -> String {
    fixture!("files/dev-break-it.yaml").to_string()
}

/// Commit messages the course text uses, in order (the fixtures commit with the same).
pub mod messages {
    /// Step 1's commit.
    pub const STEP_1: &str = "Argo CD: health status for Applications";
    /// Step 2's commit.
    pub const STEP_2: &str = "checkout: migration and smoke test in dev";
    /// Step 4's commit.
    pub const STEP_4: &str = "checkout: 6.7.0 with a broken migration";
    /// The break-it exercise's "break" commit.
    pub const BREAK_IT: &str = "checkout: smoke test endpoint";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_1_puts_the_health_check_after_the_banner_lines() {
        let solved = platform_values_solved();
        let banner_end = "    ui.bannerpermanent: \"true\"\n";
        assert_eq!(
            solved,
            PLATFORM_VALUES_FRESH.replacen(
                banner_end,
                &format!("{banner_end}{PLATFORM_HEALTH_BLOCK}"),
                1
            ),
            "step 1 adds exactly the health block, right after the banner lines"
        );
        assert!(solved.contains("timeout.reconciliation"));
    }

    #[test]
    fn the_typo_differs_from_step_1_only_in_the_health_status_line() {
        assert_eq!(
            platform_values_typo(),
            platform_values_solved().replacen(
                "hs.status = obj.status.health.status",
                "hs.status = obj.status.health",
                1
            )
        );
    }

    #[test]
    fn step_4_changes_the_tag_and_breaks_the_migration() {
        let broken = checkout_dev_broken_migration();
        assert!(broken.contains("tag: \"6.7.0\""));
        assert!(
            broken.contains("  enabled: true                # module 10\n  fail: true\nsmokeTest:")
        );
    }

    #[test]
    fn the_fixtures_commit_with_the_course_messages() {
        let steps = ["step-1.yaml", "step-2.yaml", "step-4.yaml", "break-it.yaml"];
        let messages = [
            messages::STEP_1,
            messages::STEP_2,
            messages::STEP_4,
            messages::BREAK_IT,
        ];
        let texts = [
            fixture!("step-1.yaml"),
            fixture!("step-2.yaml"),
            fixture!("step-4.yaml"),
            fixture!("break-it.yaml"),
        ];
        for ((step, message), text) in steps.iter().zip(messages).zip(texts) {
            assert!(
                text.contains(&format!("commit: \"{message}\"")),
                "{step} commits with `{message}`"
            );
        }
    }
}
