#!/usr/bin/env bash
# Module 10 break-it, break stage: smoke test at /status/503, pushed, synced; PostSync failed.
set -u
. "$(dirname "$0")/common.sh"
cd "$WORK/checkout-config" || { echo "no ~/work/checkout-config"; exit 3; }

grep -A2 '^smokeTest:' helm/dev.yaml | grep -q 'path: /status/503' \
  && pass "smokeTest.path: /status/503" || fail "smokeTest.path is not /status/503"
check_pushed checkout-config

head=$(git rev-parse HEAD)
phase=$(app .status.operationState.phase)
health=$(app .status.health.status)
rev=$(app .status.operationState.syncResult.revision)
{ [ "$phase" = Failed ] || [ "$phase" = Error ]; } && [ "$health" = Healthy ] && [ "$rev" = "$head" ] \
  && pass "the sync of your commit failed, app Healthy" || fail "phase $phase, health $health" "argocd app sync $APP --async"
hook=$(app '.status.operationState.syncResult.resources[?(@.name=="checkout-smoke-test")].hookPhase')
sphase=$(app '.status.operationState.syncResult.resources[?(@.name=="checkout-smoke-test")].syncPhase')
[ "$hook" = Failed ] && [ "$sphase" = PostSync ] \
  && pass "PostSync hook checkout-smoke-test failed" || fail "PostSync hook checkout-smoke-test did not fail"
fresh checkout-smoke-test && kubectl -n "$NS" logs job/checkout-smoke-test 2>/dev/null | grep -q 503 \
  && pass "the smoke test logged the 503" || fail "no 503 in the smoke test's log"
check_job checkout-sync-failed Complete
finish
