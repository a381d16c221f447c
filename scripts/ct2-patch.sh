#!/usr/bin/env bash
# Prints the path of CTranslate2's source with our patches applied: the copy that
# the pinned ct2rs crate vendors, patched by native/ct2-patches/*.patch in name
# order, in $WHISPERKEY_CACHE/ct2-src/<key>. The key hashes the crate's version and
# checksum (Cargo.lock) and every patch's name and content, so a changed patch is a
# new tree, and every build keyed by it is a new build. Idempotent: a tree that
# exists is checked again (each patch must reverse-apply) and reused.
#   scripts/ct2-patch.sh            the patched tree's path on stdout
#   scripts/ct2-patch.sh --key      the key alone (for the build caches)
# CT2_PRISTINE (another unpatched tree) and CT2_PATCHES (another folder of patches)
# are for the tests; with CT2_PRISTINE the key also hashes that path.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
PATCHES="${CT2_PATCHES:-$PWD/native/ct2-patches}"
LOCK=native/ct2engine/Cargo.lock
die() { echo "ct2-patch: $*" >&2; exit 1; }

# The crate the engine builds with, as the lockfile pins it.
version=$(sed -n '/^name = "ct2rs"$/{n;s/^version = "\(.*\)"$/\1/p;}' $LOCK)
checksum=$(sed -n '/^name = "ct2rs"$/{n;n;n;s/^checksum = "\(.*\)"$/\1/p;}' $LOCK)
[ -n "$version" ] && [ -n "$checksum" ] || die "no ct2rs version and checksum in $LOCK"

shopt -s nullglob
patches=("$PATCHES"/*.patch)
[ ${#patches[@]} -gt 0 ] || die "no patches in $PATCHES"
key=$( { printf 'ct2rs %s %s %s\n' "$version" "$checksum" "${CT2_PRISTINE:-}"
         for p in "${patches[@]}"; do printf '%s\n' "$(basename "$p")"; cat "$p"; done; } |
       sha256sum | cut -c1-16)
if [ "${1:-}" = --key ]; then echo "$key"; exit 0; fi

pristine="${CT2_PRISTINE:-}"
if [ -z "$pristine" ]; then
  crate=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ct2rs-"$version" 2>/dev/null | head -1 || true)
  if [ -z "$crate" ]; then
    (cd native/ct2engine && cargo fetch --locked -q) >&2
    crate=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ct2rs-"$version" | head -1)
  fi
  pristine="$crate/CTranslate2"
fi
[ -f "$pristine/src/decoding.cc" ] || die "no CTranslate2 source at $pristine"

# Applies each patch that is not applied yet; one that neither applies nor
# reverse-applies means the source moved under it.
apply_all() {
  local tree=$1 p name
  for p in "${patches[@]}"; do
    name=$(basename "$p")
    # GIT_CEILING_DIRECTORIES: patch the tree even when it lies inside a git work tree.
    if GIT_CEILING_DIRECTORIES="$(dirname "$tree")" git -C "$tree" apply --check "$p" 2>/dev/null; then
      GIT_CEILING_DIRECTORIES="$(dirname "$tree")" git -C "$tree" apply "$p" ||
        die "$name: git apply failed in $tree"
      echo "ct2-patch: applied $name" >&2
    elif GIT_CEILING_DIRECTORIES="$(dirname "$tree")" git -C "$tree" apply --reverse --check "$p" 2>/dev/null; then
      echo "ct2-patch: $name already applied" >&2
    else
      GIT_CEILING_DIRECTORIES="$(dirname "$tree")" git -C "$tree" apply --check "$p" 2>&1 | sed 's/^/  /' >&2 || true
      die "$name does not apply to CTranslate2 from ct2rs $version ($pristine): the source moved under it; refresh the patch against this source"
    fi
  done
}

tree="$CACHE/ct2-src/$key"
if [ -f "$tree/.whisperkey-patched" ]; then
  apply_all "$tree"
else
  mkdir -p "$CACHE/ct2-src"
  tmp=$(mktemp -d "$CACHE/ct2-src/.tmp-$key-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cp -R "$pristine" "$tmp/CTranslate2"
  chmod -R u+w "$tmp/CTranslate2"
  apply_all "$tmp/CTranslate2"
  for p in "${patches[@]}"; do basename "$p"; done >"$tmp/CTranslate2/.whisperkey-patched"
  rm -rf "$tree"
  mv "$tmp/CTranslate2" "$tree"
fi
echo "$tree"
