#!/usr/bin/env bash
# Do every step of the module in course order, as a learner would: run the course's own solution
# (`labcheck solution … | bash`), then check the step with labcheck against the live cluster.
# A break-it exercise is two steps here: its `break` stage (whose checks pass once it is broken
# as asked), then its `fix`. Stops at the first step that does not pass, after keeping a
# snapshot of what labcheck read and a dump of the cluster in OUT_DIR.
#
# Needs: MODULE, WORK_DIR, OUT_DIR; WAIT (default 4m); LABCHECK_COURSE_DIR for a course on disk.
# RECORD=1 keeps, after every step that passed, its JSON report, a snapshot of what the checks
# read and each repo's pushed revisions (labcheck's real-Argo-CD tier records the cluster Argo CD
# made this way).
set -euo pipefail

: "${MODULE:?}" "${WORK_DIR:?}" "${OUT_DIR:?}"
wait=${WAIT:-4m}
mkdir -p "$OUT_DIR"
export LABCHECK_WORK_DIR="$WORK_DIR"
course=()
if [ -n "${LABCHECK_COURSE_DIR:-}" ]; then
  course=(--course-dir "$LABCHECK_COURSE_DIR")
fi

mapfile -t steps < <(labcheck solution "$MODULE" "${course[@]}")
[ "${#steps[@]}" -gt 0 ] || { echo "$MODULE has no steps with a solution" >&2; exit 1; }

for step in "${steps[@]}"; do
  name=${step//\//-}
  echo "::group::$MODULE $step: the course's solution"
  labcheck solution "$MODULE" "$step" "${course[@]}" | tee "$OUT_DIR/$name.sh" | bash
  echo "::endgroup::"
  reports=(--report "junit=$OUT_DIR/$name.xml")
  if [ "${RECORD:-}" = 1 ]; then
    reports+=(--report "json=$OUT_DIR/$name.json")
  fi
  if ! labcheck "$MODULE" "$step" "${course[@]}" --wait "$wait" "${reports[@]}"; then
    echo "::error::$MODULE $step did not pass after its solution ran"
    labcheck snapshot "$MODULE" "${course[@]}" --out "$OUT_DIR/$name-snapshot.yaml" || true
    kubectl cluster-info dump --all-namespaces --output-directory "$OUT_DIR/$name-cluster" >/dev/null || true
    exit 1
  fi
  if [ "${RECORD:-}" = 1 ]; then
    labcheck snapshot "$MODULE" "${course[@]}" --out "$OUT_DIR/$name-snapshot.yaml"
    # What each repo's pushed tip and the one before it were at this point: the commits the
    # snapshot names, for turning it into a fixture (`${pushed:repo}`, `${previous:repo}`).
    for clone in "$WORK_DIR"/*/; do
      printf '%s %s %s\n' "$(basename "$clone")" \
        "$(git -C "$clone" rev-parse '@{upstream}')" \
        "$(git -C "$clone" rev-parse --verify -q '@{upstream}~1' || echo none)"
    done >"$OUT_DIR/$name-revisions.txt"
  fi
done
echo "every step of $MODULE passed on the cluster"
