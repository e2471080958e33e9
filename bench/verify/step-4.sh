#!/usr/bin/env bash
# Module 10 step 4: 6.7.0 with a failing migration, pushed; the sync stopped in PreSync.
set -u
. "$(dirname "$0")/common.sh"
cd "$WORK/checkout-config" || { echo "no ~/work/checkout-config"; exit 3; }

grep -q '^  tag: "6.7.0"' helm/dev.yaml \
  && pass 'image.tag "6.7.0"' || fail 'image.tag is not "6.7.0"'
grep -A2 '^migration:' helm/dev.yaml | grep -q 'fail: true' \
  && pass "migration.fail: true" || fail "migration.fail is not true"
check_pushed checkout-config

head=$(git rev-parse HEAD)
phase=$(app .status.operationState.phase)
rev=$(app .status.operationState.syncResult.revision)
{ [ "$phase" = Failed ] || [ "$phase" = Error ]; } && [ "$rev" = "$head" ] \
  && pass "the sync of your commit failed ($phase)" || fail "the sync of your commit did not fail (phase $phase)" "argocd app get $APP --refresh"
hook=$(app '.status.operationState.syncResult.resources[?(@.name=="checkout-migrate")].hookPhase')
sphase=$(app '.status.operationState.syncResult.resources[?(@.name=="checkout-migrate")].syncPhase')
[ "$hook" = Failed ] && [ "$sphase" = PreSync ] \
  && pass "PreSync hook checkout-migrate failed" || fail "PreSync hook checkout-migrate did not fail"
image=$(kubectl -n "$NS" get deployment checkout -o jsonpath='{.spec.template.spec.containers[0].image}')
[[ "$image" == *:6.7.1 ]] && pass "Deployment still runs 6.7.1" || fail "Deployment runs $image"

check_job checkout-migrate Failed
check_job checkout-sync-failed Complete
finish
