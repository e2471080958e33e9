#!/usr/bin/env bash
# Publish a release: every built binary, install.sh and SHA256SUMS (one line per file, as
# `sha256sum -c` and install.sh read it) on the tag's GitHub release; then the crate on crates.io
# when the repository holds a CARGO_REGISTRY_TOKEN secret.
#
# Needs: TAG, GH_TOKEN; dist/ holding the binaries. Optional: CARGO_REGISTRY_TOKEN.
set -euo pipefail

: "${TAG:?}" "${GH_TOKEN:?}"
cp install.sh dist/
(cd dist && sha256sum -- labcheck-* install.sh >SHA256SUMS && cat SHA256SUMS)
gh release create "$TAG" --title "labcheck $TAG" --generate-notes dist/*

if [ -n "${CARGO_REGISTRY_TOKEN:-}" ]; then
  # release-check.sh already built the packed crate; publishing it need not build it again.
  cargo publish --locked --no-verify
else
  echo "no CARGO_REGISTRY_TOKEN secret: the crate is not published to crates.io" >&2
fi
