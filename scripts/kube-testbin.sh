#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver, etcd, kube-controller-manager and kube-scheduler,
# from Go modules) into target/kube-testbin/ for the real-API-server tier (tests/real_apiserver/)
# and the real-Argo-CD tier (tests/real_argocd/). Does nothing when every binary is there and they
# were built and were built from the same inputs (a stamp of go.mod, go.sum, this script and
# the Go version). Go builds them; nothing labcheck ships needs Go.
#
#   scripts/kube-testbin.sh                   build kube-apiserver and etcd (or say they are up to date)
#   scripts/kube-testbin.sh controllers       also kube-controller-manager and kube-scheduler (the
#                                             real-Argo-CD tier's; minutes more cold)
#   scripts/kube-testbin.sh update v1.37.3    pin another Kubernetes release: regenerate
#                                             tools/kube-testbin/go.mod and go.sum (maintainers only)
#
# The build never writes the repo's tracked files: it runs with -mod=readonly against the committed
# go.mod and go.sum (so every module is checked against go.sum), and first verifies that go.mod
# replaces exactly the staging modules that the downloaded k8s.io/kubernetes go.mod maps to
# ./staging/src/, each at the staging release of that Kubernetes release.
# KUBE_TESTBIN_DIR overrides where the binaries go.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
module="$repo/tools/kube-testbin"
out="${KUBE_TESTBIN_DIR:-${CARGO_TARGET_DIR:-$repo/target}/kube-testbin}"
# A newer `go` line in a module must fail loudly, never fetch another toolchain; kube-apiserver
# needs no cgo (hack/lib/golang.sh lists it as static).
export GOTOOLCHAIN=local CGO_ENABLED=0 GOWORK=off GOFLAGS=-mod=readonly

fail() {
  echo "kube-testbin: $*" >&2
  exit 1
}

command -v go >/dev/null || fail "go is not installed (Go 1.26 builds the test control plane: https://go.dev/dl/)"

# The `replace` lines k8s.io/kubernetes needs from a module that depends on it: one per module its
# own go.mod maps to ./staging/src/ (a dependency's replaces are ignored, golang/go#32776), at the
# staging release of `$2` (v1.37.2 → v0.37.2). `$1` is that go.mod.
staging_replaces() {
  local gomod=$1 version=$2
  local staging="v0.${version#v1.}"
  sed -n 's#^[[:space:]]*\(replace[[:space:]]\)\{0,1\}[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/src/.*$#\2#p' "$gomod" \
    | sort -u \
    | while read -r path; do echo "replace $path => $path $staging"; done
}

# Where the module cache holds the go.mod of `$1` (k8s.io/kubernetes@v1.37.2, or without a version
# the one this module's graph selects), downloaded when missing.
kubernetes_gomod() {
  local json
  json=$(go mod download -json "$1") || fail "cannot download $1: $json"
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"$json"
}

if [[ ${1:-} == update ]]; then
  version=${2:?usage: scripts/kube-testbin.sh update v1.X.Y}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cd "$work"
  export GOFLAGS=-mod=mod
  go mod init labcheck.test/kube-testbin >/dev/null 2>&1
  # The lowest go line; `go get` raises it to what k8s.io/kubernetes needs (not this Go's own).
  go mod edit -go=1.26.0
  gomod=$(kubernetes_gomod "k8s.io/kubernetes@$version")
  [[ -n $gomod ]] || fail "the module cache names no go.mod for k8s.io/kubernetes@$version"
  staging_replaces "$gomod" "$version" >>go.mod
  go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$version" \
    "k8s.io/kubernetes/cmd/kube-controller-manager@$version" "k8s.io/kubernetes/cmd/kube-scheduler@$version"
  # etcd at the version Kubernetes' own module graph selects (its client is in that graph).
  etcd=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3 2>/dev/null \
    || go list -m -f '{{.Version}}' go.etcd.io/etcd/client/v3)
  go get -tool "go.etcd.io/etcd/server/v3@$etcd"
  go mod download -x
  cp go.mod go.sum "$module/"
  echo "kube-testbin: tools/kube-testbin pins k8s.io/kubernetes $version and etcd $etcd"
  exit 0
fi

# Each set of programs: its stamp file, its programs, the packages that build them.
sets=(core)
case ${1:-} in
  "") ;;
  controllers) sets+=(controllers) ;;
  *) fail "unknown arguments: $* (see the top of $0)" ;;
esac
[[ $# -le 1 ]] || fail "unknown arguments: $* (see the top of $0)"
stamp_file() { [[ $1 == core ]] && echo "$out/stamp" || echo "$out/$1.stamp"; }
programs_of() {
  case $1 in
    core) echo kube-apiserver etcd ;;
    controllers) echo kube-controller-manager kube-scheduler ;;
  esac
}
packages_of() {
  case $1 in
    core) echo k8s.io/kubernetes/cmd/kube-apiserver go.etcd.io/etcd/server/v3 ;;
    controllers) echo k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler ;;
  esac
}

stamp=$(cat "$module/go.mod" "$module/go.sum" "$0" <(go version) | sha256sum | cut -d' ' -f1)
stale=()
for set in "${sets[@]}"; do
  fresh=true
  for program in $(programs_of "$set"); do [[ -x $out/$program ]] || fresh=false; done
  file=$(stamp_file "$set")
  [[ -f $file && $(cat "$file") == "$stamp" ]] || fresh=false
  $fresh || stale+=("$set")
done
if [[ ${#stale[@]} -eq 0 ]]; then
  echo "kube-testbin: $out is up to date (${sets[*]})"
  exit 0
fi

cd "$module"
start=$SECONDS
mkdir -p "$out"
# Every module of the graph first: a module the proxy does not serve is named here, before any build.
if ! go mod download -x 2>"$out/download.log"; then
  grep -v '^# get \|^mkdir \|^cd \|^[0-9.]*s # ' "$out/download.log" >&2 || true
  fail "go mod download failed: the module named above is not served (full log: $out/download.log)"
fi

version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
gomod=$(kubernetes_gomod k8s.io/kubernetes)
want=$(staging_replaces "$gomod" "$version")
have=$(sed -n 's/^replace \(k8s\.io\/[^[:space:]]*\) => \(k8s\.io\/[^[:space:]]*\) \(v[^[:space:]]*\)$/replace \1 => \2 \3/p' go.mod | sort -u)
[[ -n $want ]] || fail "no staging module found in $gomod: has k8s.io/kubernetes changed how it maps them?"
if [[ $want != "$have" ]]; then
  diff <(echo "$want") <(echo "$have") >&2 || true
  fail "tools/kube-testbin/go.mod does not replace exactly k8s.io/kubernetes $version's staging modules (< wanted, > found); run: scripts/kube-testbin.sh update $version"
fi

# /version says the release, as hack/lib/version.sh stamps it (else v0.0.0).
minor=${version#v1.}
minor=${minor%%.*}
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done

building="$out/building"
for set in "${stale[@]}"; do
  rm -rf "$building"
  mkdir "$building"
  # default.pgo makes kube-apiserver's build much slower for nothing a test needs.
  # shellcheck disable=SC2046 # the packages are words
  go build -pgo=off -trimpath -ldflags="$ldflags" -o "$building/" $(packages_of "$set")
  # etcd's server module root is etcd's own main: the binary comes out named after the folder.
  [[ ! -e $building/server ]] || mv "$building/server" "$building/etcd"
  for program in $(programs_of "$set"); do
    mv "$building/$program" "$out/$program"
  done
  rmdir "$building"
  echo "$stamp" >"$(stamp_file "$set")"
done
echo "kube-testbin: built ${stale[*]} (Kubernetes $version, etcd $(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)) into $out in $((SECONDS - start))s"
