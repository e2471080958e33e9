#!/bin/sh
# Installs labcheck from a GitHub release, without a Rust toolchain:
#
#   curl -fsSL https://github.com/labcheck/labcheck/releases/latest/download/install.sh | sh
#   sh install.sh --to ~/bin --version v0.1.0
#
# It picks the binary for this machine (uname), checks it against the release's SHA256SUMS before
# anything is written outside a temporary folder, and puts it in place with one rename, so a
# failure at any point leaves the folder as it was. POSIX sh only: a learner's /bin/sh is often
# dash or busybox. Everything is in functions and the last line calls main, so a download of this
# script cut short (`curl … | sh` runs what has arrived) defines things and runs nothing.
#
# Environment (flags win): LABCHECK_VERSION (a tag such as v0.1.0, or latest), LABCHECK_INSTALL_DIR,
# LABCHECK_RELEASES_URL (where the releases are, laid out as GitHub's: a fork's, a mirror, or the
# tests' server), LABCHECK_UNAME_S and LABCHECK_UNAME_M (what `uname -s` and `uname -m` would say,
# for a machine uname misreports, and for the tests).
set -eu

say() { printf 'labcheck install: %s\n' "$*" >&2; }

refuse() {
  say "$*"
  say "nothing was installed"
  exit 1
}

usage() {
  cat <<EOF
usage: install.sh [--to DIR] [--version TAG]
  --to DIR         where to put labcheck (default ~/.local/bin; a folder you own)
  --version TAG    the release to install, e.g. v0.1.0 (default: latest)
EOF
}

# The release's name for this machine (the Rust target the release workflow builds), in $target.
pick_target() {
  os=${LABCHECK_UNAME_S:-$(uname -s)}
  arch=${LABCHECK_UNAME_M:-$(uname -m)}
  case $arch in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
  esac
  # A shell under Rosetta says x86_64 on an Apple silicon Mac; the native binary is the one to run.
  if [ "$os" = Darwin ] && [ "$arch" = x86_64 ] && [ -z "${LABCHECK_UNAME_M:-}" ] \
    && [ "$(sysctl -n hw.optional.arm64 2>/dev/null || true)" = 1 ]; then
    arch=aarch64
  fi
  case $os/$arch in
    Linux/x86_64|Linux/aarch64) target=$arch-unknown-linux-musl ;;
    Darwin/x86_64|Darwin/aarch64) target=$arch-apple-darwin ;;
    MINGW*|MSYS*|CYGWIN*|Windows*)
      refuse "there is no Windows build of labcheck; install it in WSL 2 (where the course's kind cluster runs) with this same command" ;;
    *)
      refuse "no labcheck build for $os $arch (there are: Linux x86_64 and aarch64, macOS x86_64 and arm64); build it from source: cargo install labcheck --locked" ;;
  esac
}

# fetch URL FILE and sha256 FILE, with whichever tools this machine has.
pick_tools() {
  if command -v curl >/dev/null 2>&1; then
    fetch() {
      # An https release is never followed to plain http.
      case $1 in https:*) curl -fsSL --proto '=https' -o "$2" "$1" ;; *) curl -fsSL -o "$2" "$1" ;; esac
    }
  elif command -v wget >/dev/null 2>&1; then
    fetch() {
      case $1 in https:*) wget -q --https-only -O "$2" "$1" ;; *) wget -q -O "$2" "$1" ;; esac
    }
  else
    refuse "neither curl nor wget is installed; install one and run this again"
  fi
  if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
  elif command -v shasum >/dev/null 2>&1; then
    sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
  elif command -v openssl >/dev/null 2>&1; then
    sha256() { openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1; }
  else
    refuse "no SHA-256 tool (sha256sum, shasum or openssl) to check the download with"
  fi
}

cleanup() {
  [ -z "$tmp" ] || rm -rf "$tmp"
  [ -z "$staged" ] || rm -f "$staged"
  # A folder this run made and left empty is taken back too.
  [ -z "$created_to" ] || rmdir "$to" 2>/dev/null || true
}

# The binary and SHA256SUMS into $tmp; refuses unless the binary's checksum is its line's.
download_and_check() {
  say "downloading $asset ($version) from $base"
  fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" \
    || refuse "could not download $base/SHA256SUMS (is $version a labcheck release?)"
  # `sha256sum` writes `<digest>  <name>`, or `<digest> *<name>` in binary mode. Looked up before
  # the binary is fetched: one the release does not list is not worth downloading.
  expected=$(awk -v name="$asset" '$2 == name || $2 == "*" name { print $1; exit }' "$tmp/SHA256SUMS")
  [ -n "$expected" ] || refuse "SHA256SUMS lists no checksum for $asset"
  fetch "$base/$asset" "$tmp/$asset" || refuse "could not download $base/$asset"
  actual=$(sha256 "$tmp/$asset")
  [ "$actual" = "$expected" ] \
    || refuse "the checksum of $asset does not match SHA256SUMS (expected $expected, got $actual): the download is damaged or not the release's"
}

# The checked binary into $to: staged beside its final name, so the last step is a rename within
# one file system (atomic), after it ran on this machine.
put_in_place() {
  if [ ! -d "$to" ]; then
    mkdir -p "$to" || refuse "cannot create $to; pass --to DIR with a folder you own"
    created_to=yes
  fi
  [ -w "$to" ] || refuse "cannot write to $to; pass --to DIR with a folder you own"
  to=$(cd "$to" && pwd) || refuse "cannot use $to"
  staged=$to/.labcheck.new.$$
  { cp "$tmp/$asset" "$staged" && chmod 755 "$staged"; } || refuse "cannot write to $to"
  # stdin is this script when it is piped to sh: the binary must not read it.
  built=$("$staged" --version </dev/null 2>/dev/null) \
    || refuse "the downloaded $asset does not run on this machine"
  built=$(printf '%s\n' "$built" | head -n 1)
  mv -f "$staged" "$to/labcheck" || refuse "cannot move labcheck into $to"
  staged=
  created_to=
}

# Where the learner's shell finds labcheck, or what to add so it does.
advise_path() {
  case :${PATH:-}: in
    *:"$to":*)
      found=$(command -v labcheck 2>/dev/null || true)
      if [ -n "$found" ] && [ "$found" != "$to/labcheck" ]; then
        say "note: $found comes first on your PATH; remove it or put $to before it"
      fi
      ;;
    *)
      case ${SHELL:-} in
        */zsh) rc=.zshrc ;;
        */bash) rc=.bashrc ;;
        *) rc=.profile ;;
      esac
      say "$to is not on your PATH; add this line to ${HOME:-your home}/$rc and open a new terminal:"
      # $PATH is printed as written: the line is for the learner's shell to expand, not this one.
      # shellcheck disable=SC2016
      printf '  export PATH="%s:$PATH"\n' "$to" >&2
      ;;
  esac
}

main() {
  releases=${LABCHECK_RELEASES_URL:-https://github.com/labcheck/labcheck/releases}
  version=${LABCHECK_VERSION:-latest}
  to=${LABCHECK_INSTALL_DIR:-${HOME:-}/.local/bin}
  while [ $# -gt 0 ]; do
    case $1 in
      --to) [ $# -ge 2 ] || { usage >&2; exit 2; }; to=$2; shift 2 ;;
      --to=*) to=${1#--to=}; shift ;;
      --version) [ $# -ge 2 ] || { usage >&2; exit 2; }; version=$2; shift 2 ;;
      --version=*) version=${1#--version=}; shift ;;
      -h|--help) usage; exit 0 ;;
      *) say "unknown option: $1"; usage >&2; exit 2 ;;
    esac
  done
  [ -n "$to" ] || refuse "no folder to install to: HOME is not set; pass --to DIR"

  pick_target
  asset=labcheck-$target
  case $version in
    latest) base=$releases/latest/download ;;
    v*) base=$releases/download/$version ;;
    *) base=$releases/download/v$version ;;
  esac
  pick_tools

  # Everything downloaded stays in here until it is checked; the trap removes it however we leave.
  tmp='' staged='' created_to=''
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  tmp=$(mktemp -d 2>/dev/null || mktemp -d -t labcheck) || refuse "cannot make a temporary folder"

  download_and_check
  put_in_place
  say "installed $built to $to/labcheck"
  advise_path
}

main "$@"
