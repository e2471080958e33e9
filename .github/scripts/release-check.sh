#!/usr/bin/env bash
# Before anything is built for a release: the tag must be the crate's version (so `labcheck
# --version`, the asset names binstall derives from Cargo.toml and the tag agree), the crate must
# build with the `rust-version` Cargo.toml promises, and it must build from the packed crate that
# `cargo publish` would upload.
#
# Needs: TAG (e.g. v0.1.0).
set -euo pipefail

: "${TAG:?}"
package=$(cargo metadata --locked --no-deps --format-version 1 | jq -c '.packages[0]')
version=$(jq -r .version <<<"$package")
msrv=$(jq -r '.rust_version // empty' <<<"$package")
[ "$TAG" = "v$version" ] \
  || { echo "the tag $TAG is not v$version, the version in Cargo.toml; bump one of them" >&2; exit 1; }
[ -n "$msrv" ] || { echo "Cargo.toml has no rust-version" >&2; exit 1; }

rustup toolchain install "$msrv" --profile minimal
cargo "+$msrv" check --locked --bins \
  || { echo "labcheck does not build with Rust $msrv: raise rust-version in Cargo.toml" >&2; exit 1; }
cargo package --locked
