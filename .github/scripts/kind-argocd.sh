#!/usr/bin/env bash
# Install Argo CD in the kind cluster at a pinned argo-cd chart version with the platform's own
# values, the argocd CLI in core mode, then apply every lab repo's bootstrap/ (the app of apps)
# and wait until labcheck's CI prerequisites hold.
#
# Needs: MODULE, WORK_DIR, BIN_DIR (on PATH); ARGOCD_CHART_VERSION may be empty: then the version
# the lab pins for Argo CD's own Application (apps/argocd.yaml) is used; LABCHECK_COURSE_DIR for
# a course on disk.
set -euo pipefail

: "${MODULE:?}" "${WORK_DIR:?}" "${BIN_DIR:?}"
version=${ARGOCD_CHART_VERSION:-}
pinned=$(grep -rhA3 'chart: argo-cd' "$WORK_DIR"/*/apps/ 2>/dev/null \
  | sed -n 's/^ *targetRevision: *//p' | head -n 1 || true)
version=${version:-$pinned}
[ -n "$version" ] || { echo "no argo-cd chart version: set the argocd-version input" >&2; exit 1; }

course=()
if [ -n "${LABCHECK_COURSE_DIR:-}" ]; then
  course=(--course-dir "$LABCHECK_COURSE_DIR")
fi

values=()
for file in "$WORK_DIR"/*/argocd/values.yaml; do
  [ -f "$file" ] && values+=(--values "$file")
done

helm repo add argo https://argoproj.github.io/argo-helm >/dev/null
helm repo update argo >/dev/null
helm upgrade --install argocd argo/argo-cd --version "$version" \
  --namespace argocd --create-namespace "${values[@]}" --wait --timeout 10m

app_version=$(helm show chart argo/argo-cd --version "$version" | sed -n 's/^appVersion: *//p')
curl -fsSL -o "$BIN_DIR/argocd" \
  "https://github.com/argoproj/argo-cd/releases/download/$app_version/argocd-linux-amd64"
chmod +x "$BIN_DIR/argocd"
# Core mode: the CLI talks to the Kubernetes API as kubectl does (no argocd-server login).
kubectl config set-context --current --namespace=argocd
argocd login --core
argocd version --client --short

for dir in "$WORK_DIR"/*/bootstrap; do
  [ -d "$dir" ] && kubectl apply -f "$dir"
done

# Until the module's Applications exist and what CI needs answers (five minutes at most).
for _ in $(seq 1 60); do
  if labcheck doctor "$MODULE" "${course[@]}" --for ci --work-dir "$WORK_DIR"; then
    exit 0
  fi
  sleep 5
done
echo "the lab did not come up within five minutes" >&2
kubectl -n argocd get applications || true
exit 1
