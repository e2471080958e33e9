#!/usr/bin/env bash
# Module 10 step 2: migration and smoke test switched on in dev, pushed, synced, both hooks ran.
set -u
. "$(dirname "$0")/common.sh"
cd "$WORK/checkout-config" || { echo "no ~/work/checkout-config"; exit 3; }

grep -A1 '^migration:' helm/dev.yaml | grep -q 'enabled: true' \
  && pass "migration.enabled: true" || fail "migration.enabled is not true" "add migration: {enabled: true}"
grep -A1 '^smokeTest:' helm/dev.yaml | grep -q 'enabled: true' \
  && pass "smokeTest.enabled: true" || fail "smokeTest.enabled is not true" "add smokeTest: {enabled: true}"
check_pushed checkout-config

head=$(git rev-parse HEAD)
[ "$(app .status.sync.status)" = Synced ] && [ "$(app .status.sync.revision)" = "$head" ] \
  && pass "checkout-dev Synced to $head" || fail "checkout-dev not Synced to your commit" "argocd app get $APP --refresh"
[ "$(app .status.operationState.phase)" = Succeeded ] && [ "$(app .status.operationState.syncResult.revision)" = "$head" ] \
  && pass "a sync of your commit succeeded" || fail "no successful sync of your commit" "argocd app sync $APP"

check_job checkout-migrate Complete
check_job checkout-smoke-test Complete
fresh checkout-migrate && kubectl -n "$NS" logs job/checkout-migrate 2>/dev/null | grep -qi migrat \
  && pass "the migration left a log" || fail "no migration log" "kubectl -n $NS logs job/checkout-migrate"
finish
