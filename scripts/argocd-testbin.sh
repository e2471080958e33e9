#!/usr/bin/env bash
# Builds the real-Argo-CD tier's parts (tests/real_argocd/) from Go modules into
# target/argocd-testbin/: Argo CD's one binary (application controller, repo server, API server and
# the `argocd` CLI, which it picks by the name it is called by), KWOK and Helm. Beside them it puts
# what the same argo-cd module ships and the tiers read: Argo CD's CRDs (crds/) and the repo
# server's signature-check scripts (the repo server runs git-verify-wrapper.sh from its PATH on
# every revision, even with GPG off).
#
#   scripts/argocd-testbin.sh                  build (or say it is up to date)
#   scripts/argocd-testbin.sh crds             only the CRDs and scripts (seconds: no build); the
#                                              real-API-server tier needs nothing else
#   scripts/argocd-testbin.sh update v3.6.3    pin another Argo CD release: regenerate
#                                              tools/argocd-testbin/go.mod and go.sum (maintainers)
#
# Argo CD v3.6 needs Go 1.27 (its go.mod says `go 1.27.0`): GOTOOLCHAIN=go1.27.3 makes the go
# command take that toolchain from the module proxy once per machine (about 76 MB). KWOK and Helm
# build with the machine's Go 1.26.
#
# The build never writes the repo's tracked files: -mod=readonly against the committed go.mod and
# go.sum, after checking that tools/argocd-testbin/go.mod repeats exactly the replace lines of the
# argo-cd release it pins (a dependency's replaces are ignored, golang/go#32776), but the one that
# points into argo-cd's own tree (gitops-engine, which the proxy serves at the same release).
# ARGOCD_TESTBIN_DIR overrides where everything goes.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
self="$repo/scripts/$(basename "$0")"
tools="$repo/tools"
out="${ARGOCD_TESTBIN_DIR:-${CARGO_TARGET_DIR:-$repo/target}/argocd-testbin}"
export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0
argocd_toolchain=go1.27.3

fail() {
  echo "argocd-testbin: $*" >&2
  exit 1
}

command -v go >/dev/null || fail "go is not installed (Go 1.26 builds the tier's parts; it fetches Go 1.27 for Argo CD itself: https://go.dev/dl/)"

# The non-local replace lines of a go.mod, one `old => new version` per line, sorted.
replaces_of() {
  go mod edit -json "$1" \
    | jq -r '.Replace // [] | .[] | select(.New.Path | startswith("./") or startswith("../") | not)
             | "\(.Old.Path) => \(.New.Path) \(.New.Version)"' \
    | sort
}

# Where the module cache holds `$1`'s `$2` (GoMod or Dir), downloaded when missing.
module_file() {
  local json
  json=$(go mod download -json "$1") || fail "cannot download $1: $json"
  sed -n "s/^[[:space:]]*\"$2\": \"\(.*\)\",\{0,1\}\$/\1/p" <<<"$json"
}

need_jq() {
  command -v jq >/dev/null || fail "jq is not installed (it reads go.mod files as JSON; Debian's package jq)"
}

if [[ ${1:-} == update ]]; then
  need_jq
  version=${2:?usage: scripts/argocd-testbin.sh update v3.X.Y}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cd "$work"
  export GOTOOLCHAIN=$argocd_toolchain GOFLAGS=-mod=mod
  go mod init labcheck.test/argocd-testbin >/dev/null 2>&1
  upstream=$(module_file "github.com/argoproj/argo-cd/v3@$version" GoMod)
  go mod edit -go="$(go mod edit -json "$upstream" | jq -r .Go)"
  while read -r old _ new new_version; do
    go mod edit -replace="$old=$new@$new_version"
  done < <(replaces_of "$upstream")
  go get -tool "github.com/argoproj/argo-cd/v3/cmd@$version"
  go mod download -x
  cp go.mod go.sum "$tools/argocd-testbin/"
  echo "argocd-testbin: tools/argocd-testbin pins argo-cd $version"
  exit 0
fi

mode=${1:-build}
if [[ $mode != build && $mode != crds ]] || [[ $# -gt 1 ]]; then
  fail "unknown arguments: $* (see the top of $self)"
fi

mkdir -p "$out"
start=$SECONDS

# Argo CD's module: its CRDs and the repo server's scripts copied out (no jq needed for this).
cd "$tools/argocd-testbin"
export GOTOOLCHAIN=$argocd_toolchain
if ! go mod download -x github.com/argoproj/argo-cd/v3 2>"$out/download.log"; then
  grep -v '^# get \|^mkdir \|^cd \|^[0-9.]*s # ' "$out/download.log" >&2 || true
  fail "go mod download failed: the module named above is not served (full log: $out/download.log)"
fi
argocd_version=$(go list -m -f '{{.Version}}' github.com/argoproj/argo-cd/v3)
upstream=$(module_file "github.com/argoproj/argo-cd/v3@$argocd_version" GoMod)
argocd_dir=$(module_file "github.com/argoproj/argo-cd/v3@$argocd_version" Dir)
# Copied over in place, never removed first: a running repo server may be using the scripts.
mkdir -p "$out/crds" "$out/hack"
cp -f "$argocd_dir"/manifests/crds/*-crd.yaml "$out/crds/"
cp -f "$argocd_dir"/hack/git-verify-wrapper.sh "$argocd_dir"/hack/gpg-wrapper.sh "$out/hack/"
chmod -R u+w "$out/crds" "$out/hack"
chmod +x "$out"/hack/*.sh
echo "$argocd_version" >"$out/crds/VERSION"
[[ $mode == crds ]] && { echo "argocd-testbin: Argo CD $argocd_version's CRDs in $out/crds"; exit 0; }

# The build's module graph: argo-cd's replace lines repeated exactly.
need_jq
want=$(replaces_of "$upstream")
have=$(replaces_of go.mod)
if [[ $want != "$have" ]]; then
  diff <(echo "$want") <(echo "$have") >&2 || true
  fail "tools/argocd-testbin/go.mod does not repeat argo-cd $argocd_version's replace lines (< wanted, > found); run: scripts/argocd-testbin.sh update $argocd_version"
fi
stamp=$(cat "$tools"/{argocd,kwok,helm}-testbin/go.{mod,sum} "$self" <(go version) | sha256sum | cut -d' ' -f1)
if [[ -x $out/argocd && -x $out/kwok && -x $out/helm && -f $out/stamp && $(cat "$out/stamp") == "$stamp" ]]; then
  echo "argocd-testbin: $out is up to date"
  exit 0
fi

# Every module of each graph first: a module the proxy does not serve is named before any build.
download_all() {
  if ! go mod download -x 2>"$out/download.log"; then
    grep -v '^# get \|^mkdir \|^cd \|^[0-9.]*s # ' "$out/download.log" >&2 || true
    fail "go mod download failed in $PWD: the module named above is not served (full log: $out/download.log)"
  fi
}

building="$out/building"
rm -rf "$building"
mkdir "$building"

# Argo CD calls itself v99.99.99 unless its version is stamped, as its Makefile does.
download_all
pkg=github.com/argoproj/argo-cd/v3/common
go build -trimpath -o "$building/argocd" \
  -ldflags="-X $pkg.version=${argocd_version#v} -X $pkg.gitTag=$argocd_version -X $pkg.gitTreeState=clean" \
  github.com/argoproj/argo-cd/v3/cmd

export GOTOOLCHAIN=local
cd "$tools/kwok-testbin"
download_all
kwok_version=$(go list -m -f '{{.Version}}' sigs.k8s.io/kwok)
go build -trimpath -o "$building/kwok" sigs.k8s.io/kwok/cmd/kwok
kwok_dir=$(module_file "sigs.k8s.io/kwok@$kwok_version" Dir)
rm -rf "$out/kwok-stages"
cp -r "$kwok_dir/kustomize/stage" "$out/kwok-stages"
chmod -R u+w "$out/kwok-stages"

cd "$tools/helm-testbin"
download_all
helm_version=$(go list -m -f '{{.Version}}' helm.sh/helm/v4)
# The Helm that Argo CD's release ships renders the course's chart, as in the kind workflow.
shipped=$(sed -n 's/^HELM_VERSION=//p' "$argocd_dir/hack/tool-versions.sh")
[[ v$shipped == "$helm_version" ]] \
  || fail "tools/helm-testbin pins Helm $helm_version, but Argo CD $argocd_version ships Helm v$shipped (hack/tool-versions.sh): pin that one"
go build -trimpath -o "$building/helm" \
  -ldflags="-X helm.sh/helm/v4/internal/version.version=$helm_version -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
  helm.sh/helm/v4/cmd/helm

mv "$building"/* "$out/"
rmdir "$building"
echo "$stamp" >"$out/stamp"
echo "argocd-testbin: built Argo CD $argocd_version, KWOK $kwok_version and Helm $helm_version into $out in $((SECONDS - start))s"
