#!/usr/bin/env bash
# Build one release binary: `labcheck-<target>` in dist/, statically linked on Linux (musl) so it
# runs on any distribution and in a course's devcontainer.
#
# Needs: TARGET (a Rust target triple), VERSION (the crate's, without the v).
set -euo pipefail

: "${TARGET:?}" "${VERSION:?}"
case $TARGET in
  *-linux-musl)
    sudo apt-get update -qq
    sudo apt-get install -y -qq musl-tools >/dev/null
    # cc-rs looks for <arch>-linux-musl-gcc when the runner's own triple is not the target's;
    # Debian's musl-tools names its wrapper musl-gcc on every architecture.
    export "CC_${TARGET//-/_}=musl-gcc"
    ;;
esac

cargo build --release --locked --target "$TARGET"
mkdir -p dist
asset=dist/labcheck-$TARGET
cp "target/$TARGET/release/labcheck" "$asset"

case $TARGET in
  *-linux-musl)
    linked=$(file -b "$asset")
    [[ $linked == *"statically linked"* || $linked == *"static-pie linked"* ]] \
      || { echo "$asset is not statically linked: $linked" >&2; exit 1; }
    ;;
esac

# The binary must say its version (and the course it carries) where this runner can run it; the
# macOS x86_64 build is cross-compiled on an arm64 runner and is checked only for its architecture.
if [[ $TARGET == x86_64-apple-darwin ]]; then
  file -b "$asset" | grep -q x86_64 || { echo "$asset is not an x86_64 binary" >&2; exit 1; }
else
  said=$("$asset" --version)
  echo "$said"
  [[ $said == "labcheck $VERSION (course "* ]] \
    || { echo "$asset --version says \`$said\`, not labcheck $VERSION and its course" >&2; exit 1; }
fi
