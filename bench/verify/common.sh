# Helpers shared by the verify scripts, the way course repos carry a small lib next to them.
# Needs: bash, git, kubectl (KUBECONFIG set), grep. WORK defaults to ~/work.
WORK=${WORK:-$HOME/work}
NS=checkout-dev
ARGO=argocd
APP=checkout-dev
failed=0

pass() { echo "  ✔ $1"; }
fail() { echo "  ✘ $1"; [ -n "${2:-}" ] && echo "    hint: $2"; failed=1; }

app() { kubectl -n "$ARGO" get application "$APP" -o jsonpath="{$1}" 2>/dev/null; }

# committed on main, clean tree, pushed
check_pushed() {
  local repo="$WORK/$1" branch head upstream
  branch=$(git -C "$repo" rev-parse --abbrev-ref HEAD)
  [ "$branch" = main ] || { fail "$1 is on $branch, not main"; return; }
  # Tracked files only: an untracked .env or swap file is the learner's own, never the step's.
  [ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] || {
    fail "$1 has uncommitted changes" "git -C $repo status, then git add the step's files by name and git commit"; return; }
  head=$(git -C "$repo" rev-parse HEAD)
  upstream=$(git -C "$repo" rev-parse '@{upstream}')
  [ "$head" = "$upstream" ] && pass "$1 committed on main and pushed" || fail "$1 not pushed" "git push"
}

# job NAME was created by the last sync (not left over from an earlier one)
fresh() {
  local created started
  created=$(kubectl -n "$NS" get job "$1" -o jsonpath='{.metadata.creationTimestamp}' 2>/dev/null)
  started=$(app .status.operationState.startedAt)
  [ -n "$created" ] && ! [[ "$created" < "$started" ]]
}

# job NAME must have condition TYPE=True and be created by the last sync
check_job() {
  local name=$1 want=$2 cond
  cond=$(kubectl -n "$NS" get job "$name" -o jsonpath="{.status.conditions[?(@.type==\"$want\")].status}" 2>/dev/null)
  [ "$cond" = True ] || { fail "Job $name is not $want" "kubectl -n $NS get jobs"; return; }
  fresh "$name" && pass "Job $name $want in the last sync" || fail "Job $name is from an earlier sync"
}

finish() { [ "$failed" = 0 ] && echo "PASS" || echo "FAIL"; exit "$failed"; }
