#!/usr/bin/env bash
# Serve the module's lab repos from `git daemon` on the runner, where both the runner (the
# learner's clones) and the kind cluster (Argo CD) reach them at one URL, and make the learner's
# work dir: one clone per repo with the lab's files committed and pushed.
#
# The lab's files name the course's Git server (http://git.course.local/<group>/<repo>.git);
# here that prefix becomes git://<the kind network's gateway>/, the same URL inside and outside
# the cluster, so labcheck's `revision_of` matches the Application's repoURL to the clone's origin.
#
# Needs: COURSE_DIR (holds modules/), MODULE, WORK_DIR, GIT_ROOT (the served folder).
# Writes GIT_URL=git://<ip> to $GITHUB_ENV when it is set. With SERVED_URL set (labcheck's
# real-Argo-CD tier: git://127.0.0.1:<port>), a git server already serves GIT_ROOT there and
# none is started.
set -euo pipefail

: "${COURSE_DIR:?}" "${MODULE:?}" "${WORK_DIR:?}" "${GIT_ROOT:?}"
lab="$COURSE_DIR/modules/$MODULE/lab"
[ -d "$lab" ] || { echo "no lab for $MODULE: $lab is not a folder" >&2; exit 1; }

mkdir -p "$GIT_ROOT" "$WORK_DIR"
if [ -n "${SERVED_URL:-}" ]; then
  url=$SERVED_URL
else
  # The kind network's IPv4 gateway is this runner as the cluster's nodes see it.
  ip=$(docker network inspect kind \
    --format '{{range .IPAM.Config}}{{println .Gateway}}{{end}}' | grep -E '^[0-9]+\.' | head -n 1)
  [ -n "$ip" ] || { echo "cannot find the kind network's IPv4 gateway" >&2; exit 1; }
  url="git://$ip"
  git daemon --detach --reuseaddr --export-all --enable=receive-pack \
    --base-path="$GIT_ROOT" --listen=0.0.0.0 --pid-file="$GIT_ROOT/daemon.pid" "$GIT_ROOT"
fi

export GIT_AUTHOR_NAME="Course CI" GIT_AUTHOR_EMAIL="ci@course.local"
export GIT_COMMITTER_NAME="Course CI" GIT_COMMITTER_EMAIL="ci@course.local"

for dir in "$lab"/*/; do
  repo=$(basename "$dir")
  # The group a lab file puts the repo under (platform/, team-checkout/, course/, ...).
  group=$(grep -rhoE "git\.course\.local/[^/\"' ]+/$repo\.git" "$lab" | head -n 1 | cut -d/ -f2 || true)
  group=${group:-course}
  bare="$GIT_ROOT/$group/$repo.git"
  git init -q --bare -b main "$bare"
  clone="$WORK_DIR/$repo"
  git init -q -b main "$clone"
  cp -R "$dir". "$clone/"
  # A repo whose files name no URL (grep finds nothing: status 1) is no failure.
  { grep -rlF "http://git.course.local/" "$clone" --exclude-dir=.git || true; } \
    | while IFS= read -r file; do
      sed -i "s#http://git\.course\.local/#$url/#g" "$file"
    done
  git -C "$clone" remote add origin "$url/$group/$repo.git"
  git -C "$clone" add -A
  git -C "$clone" commit -qm "the lab as $MODULE starts"
  git -C "$clone" push -q -u origin main
  echo "served $repo at $url/$group/$repo.git, cloned to $clone"
done

if [ -n "${GITHUB_ENV:-}" ]; then
  echo "GIT_URL=$url" >>"$GITHUB_ENV"
fi
