# shellcheck shell=bash
# Sourced by the scripts that take pinned files from a package index's file
# host (speech.sh, speech-set.sh): fetch URL SHA256 puts URL's file in $DL
# once, checked against its hash, and fails naming the calling script.
fetch() { # url sha256
  local f="$DL/${1##*/}"
  if [ ! -f "$f" ] || ! echo "$2  $f" | sha256sum -c --quiet 2>/dev/null; then
    curl -fsSL --retry 3 -o "$f.part" "$1"
    echo "$2  $f.part" | sha256sum -c --quiet || { echo "${0##*/}: $1: checksum mismatch" >&2; exit 1; }
    mv "$f.part" "$f"
  fi
}
