#!/usr/bin/env bash
# Builds tools/yaml-reader (a tiny Go program that reads YAML files as Helm and Argo CD do, with
# sigs.k8s.io/yaml and apimachinery at Argo CD v3.6.2's versions) into target/yaml-reader/ for the
# differential test tests/labcheck/yaml_readers.rs. Does nothing when the binary is there and was
# built from the same inputs (a stamp of go.mod, go.sum, main.go, this script and the Go version).
# The build never writes the repo's tracked files (-mod=readonly against the committed go.sum),
# never fetches another Go toolchain (GOTOOLCHAIN=local). YAML_READER_DIR overrides where it goes.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
module="$repo/tools/yaml-reader"
out="${YAML_READER_DIR:-${CARGO_TARGET_DIR:-$repo/target}/yaml-reader}"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOWORK=off GOFLAGS=-mod=readonly

fail() {
  echo "yaml-reader: $*" >&2
  exit 1
}

command -v go >/dev/null || fail "go is not installed (Go 1.26 builds the YAML reader of the differential test)"
[[ $# -eq 0 ]] || fail "unknown arguments: $* (see the top of $0)"

stamp=$(cat "$module/go.mod" "$module/go.sum" "$module/main.go" "$0" <(go version) | sha256sum | cut -d' ' -f1)
if [[ -x $out/yaml-reader && -f $out/stamp && $(cat "$out/stamp") == "$stamp" ]]; then
  echo "yaml-reader: $out is up to date"
  exit 0
fi

cd "$module"
start=$SECONDS
mkdir -p "$out"
go build -trimpath -o "$out/yaml-reader.new" .
mv "$out/yaml-reader.new" "$out/yaml-reader"
echo "$stamp" >"$out/stamp"
echo "yaml-reader: built $out/yaml-reader in $((SECONDS - start))s"
