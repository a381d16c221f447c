#!/usr/bin/env bash
# Authenticode signing of the Windows build with osslsigncode (a Debian
# package; make deps installs it). One step for releases and for make test:
#   bash scripts/sign.sh sign FILE...        sign each file in place (a previous
#                                            signature is replaced)
#   bash scripts/sign.sh verify FILE...      osslsigncode verify each file
#   bash scripts/sign.sh throwaway DIR       make a self-signed code-signing
#                                            certificate in DIR (cert.pfx, cert.pem,
#                                            password) for tests
#   bash scripts/sign.sh signed FILE         exit 0 when FILE carries a signature
#
# The certificate comes from the environment (a release secret):
#   WHISPERKEY_SIGN_PFX       PKCS#12 file with the key and its certificate chain
#   WHISPERKEY_SIGN_PASSWORD  its password (may be empty)
#   WHISPERKEY_SIGN_TIMESTAMP RFC 3161 timestamp server, e.g. http://timestamp.digicert.com
#                             (unset: no timestamp; the signature then ends with the certificate)
#   WHISPERKEY_SIGN_CAFILE    verify against these roots (default: the system's,
#                             /etc/ssl/certs/ca-certificates.crt; WHISPERKEY_SIGN_TSA_CAFILE
#                             likewise for the timestamp's signature)
# Without WHISPERKEY_SIGN_PFX, `sign` says so and leaves the files unsigned
# (developers' builds install all the same); WHISPERKEY_SIGN_REQUIRED=1 makes
# that an error, for releases.
set -euo pipefail
NAME="WhisperKey"
URL="https://github.com/whisperkey/whisperkey"
die() { echo "sign: $*" >&2; exit 1; }
need() { command -v osslsigncode >/dev/null || die "osslsigncode not found; install it (apt-get install osslsigncode, or make deps)"; }

sign() {
  if [ -z "${WHISPERKEY_SIGN_PFX:-}" ]; then
    [ "${WHISPERKEY_SIGN_REQUIRED:-0}" = 1 ] &&
      die "WHISPERKEY_SIGN_REQUIRED=1 but no certificate: set WHISPERKEY_SIGN_PFX (and WHISPERKEY_SIGN_PASSWORD) to the code-signing certificate"
    echo "sign: no certificate (WHISPERKEY_SIGN_PFX unset); left unsigned: $*" >&2
    return 0
  fi
  need
  [ -r "$WHISPERKEY_SIGN_PFX" ] || die "WHISPERKEY_SIGN_PFX=$WHISPERKEY_SIGN_PFX is not a readable file; it must be the PKCS#12 (.pfx) code-signing certificate"
  local ts=() f tmp out
  [ -n "${WHISPERKEY_SIGN_TIMESTAMP:-}" ] && ts=(-ts "$WHISPERKEY_SIGN_TIMESTAMP")
  for f in "$@"; do
    [ -f "$f" ] || die "$f: no such file"
    tmp="$f.signing"
    # The password through a file descriptor, never on the command line.
    if ! out=$(osslsigncode sign -pkcs12 "$WHISPERKEY_SIGN_PFX" -readpass <(printf '%s' "${WHISPERKEY_SIGN_PASSWORD:-}") \
      -h sha256 -n "$NAME" -i "$URL" "${ts[@]}" -in "$f" -out "$tmp" 2>&1); then
      rm -f "$tmp"
      die "signing $f failed (wrong WHISPERKEY_SIGN_PASSWORD, or not a PKCS#12 file?):"$'\n'"$out"
    fi
    chmod --reference="$f" "$tmp"
    mv -f "$tmp" "$f"
    echo "sign: signed $f"
  done
}

verify() {
  need
  local ca="${WHISPERKEY_SIGN_CAFILE:-/etc/ssl/certs/ca-certificates.crt}" f out bad=0
  # A timestamp's own signature chains to a public root (the TSA's).
  local tsa="${WHISPERKEY_SIGN_TSA_CAFILE:-/etc/ssl/certs/ca-certificates.crt}"
  [ -r "$ca" ] || die "no CA file $ca to verify against; set WHISPERKEY_SIGN_CAFILE"
  [ -r "$tsa" ] || die "no CA file $tsa for timestamps; set WHISPERKEY_SIGN_TSA_CAFILE or install ca-certificates"
  for f in "$@"; do
    if out=$(osslsigncode verify -CAfile "$ca" -TSA-CAfile "$tsa" -in "$f" 2>&1); then
      echo "sign: verified $f ($(sed -n 's/^[[:space:]]*Subject: //p' <<<"$out" | head -1))"
    else
      echo "sign: $f does not verify against $ca:"$'\n'"$out" >&2
      bad=1
    fi
  done
  return $bad
}

throwaway() {
  local dir=$1 pass
  command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
  mkdir -p "$dir"
  pass=$(openssl rand -hex 12)
  # A code-signing certificate valid for two days; nothing trusts it but the tests.
  openssl req -x509 -newkey rsa:3072 -nodes -days 2 -keyout "$dir/key.pem" -out "$dir/cert.pem" \
    -subj "/O=WhisperKey tests/CN=WhisperKey test signing (throwaway)" \
    -addext "keyUsage=critical,digitalSignature" -addext "extendedKeyUsage=codeSigning" 2>/dev/null ||
    die "openssl could not make the throwaway certificate"
  openssl pkcs12 -export -inkey "$dir/key.pem" -in "$dir/cert.pem" -out "$dir/cert.pfx" -passout "pass:$pass"
  rm -f "$dir/key.pem"
  printf '%s' "$pass" >"$dir/password"
  echo "sign: throwaway certificate in $dir"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  sign) [ $# -gt 0 ] || die "usage: scripts/sign.sh sign FILE..."; sign "$@" ;;
  verify) [ $# -gt 0 ] || die "usage: scripts/sign.sh verify FILE..."; verify "$@" ;;
  throwaway) [ $# -eq 1 ] || die "usage: scripts/sign.sh throwaway DIR"; throwaway "$1" ;;
  signed)
    [ $# -eq 1 ] || die "usage: scripts/sign.sh signed FILE"
    need
    t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
    osslsigncode extract-signature -in "$1" -out "$t/sig" >/dev/null 2>&1 ;;
  *) die "usage: scripts/sign.sh sign|verify|signed FILE... or scripts/sign.sh throwaway DIR" ;;
esac
