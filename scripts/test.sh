#!/usr/bin/env bash
# The test suite; run through scripts/testenv.sh (make test does) so the
# display, D-Bus and microphone are real.
set -euo pipefail
export WHISPERKEY_ENGINE_DIR="$PWD/build/engine/cpu"
export WHISPERKEY_TEST_DISALLOW_SKIP="${WHISPERKEY_TEST_DISALLOW_SKIP:-1}"
export WHISPERKEY_REQUIRE_INSTALLER=1
step() { printf '\n== %s\n' "$*"; }

step "lint: gofmt, vet (Linux and Windows), cargo fmt and clippy, staticcheck, dead code, actionlint"
bash scripts/lint.sh

step "the CPU engine from our patched CTranslate2, for the patches' tests (scripts/engine-source.sh)"
if [ "$(cat build/engine/cpu/BACKEND 2>/dev/null)" != source ]; then
  ENGINE_BACKEND=source ENGINE_OUT=build/engine-source/cpu bash scripts/engine.sh
  export WHISPERKEY_PATCHED_ENGINE_DIR="$PWD/build/engine-source/cpu"
fi

step "real speech, in English and other languages, and the speech detector (scripts/speech.sh, scripts/speech-langs.sh, scripts/vad.sh)"
bash scripts/speech.sh
bash scripts/speech-langs.sh
bash scripts/vad.sh

step "the chat server and small instruction model for the AI-cleanup tests (scripts/llm.sh)"
bash scripts/llm.sh

step "Windows exe, CPU engine DLL, installer, signed; under wine: unit tests and the installed app (scripts/test-wine.sh)"
# The release's signing step with a throwaway certificate, unless a real one
# is given (the release workflow): TestWindowsSignatures verifies every
# signature against WHISPERKEY_SIGN_CAFILE.
if [ -z "${WHISPERKEY_SIGN_PFX:-}" ]; then
  SIGN_DIR=$(mktemp -d)
  trap 'rm -rf "$SIGN_DIR"' EXIT
  bash scripts/sign.sh throwaway "$SIGN_DIR"
  export WHISPERKEY_SIGN_PFX="$SIGN_DIR/cert.pfx" WHISPERKEY_SIGN_CAFILE="$SIGN_DIR/cert.pem"
  WHISPERKEY_SIGN_PASSWORD=$(cat "$SIGN_DIR/password")
  export WHISPERKEY_SIGN_PASSWORD
fi
bash scripts/windows.sh
bash scripts/windows-engine.sh
WHISPERKEY_REQUIRE_ENGINE=1 bash scripts/installer.sh
# The key and its password go no further than the signing: doctor, which the
# tests run, lists every WHISPERKEY_ variable it finds. A real certificate
# chains to a public root, which the system's bundle holds.
unset WHISPERKEY_SIGN_PFX WHISPERKEY_SIGN_PASSWORD
export WHISPERKEY_SIGN_CAFILE="${WHISPERKEY_SIGN_CAFILE:-/etc/ssl/certs/ca-certificates.crt}"
# A wine failure is reported at the end, after the Linux tests have run.
wine_rc=0
WINE_LOG=$(mktemp)
bash scripts/test-wine.sh 2>&1 | tee "$WINE_LOG" || wine_rc=$?

step "go test (packages)"
go test -count=1 -p 2 -timeout 40m $(go list ./... | grep -v '^github.com/whisperkey/whisperkey\(/internal/e2e\)\?$') 2>&1 | tee /tmp/whisperkey-test.log
# The end-to-end tests play speech into a virtual microphone in real time, as a
# person would speak; they run alone, as on a user's desktop, not beside the
# CPU-heavy packages above.
step "go test (end to end: the real app)"
go test -count=1 -timeout 40m -skip '^TestWine' ./internal/e2e 2>&1 | tee -a /tmp/whisperkey-test.log

step "fuzz every parser of untrusted bytes briefly"
bash scripts/fuzz.sh

if [ "$wine_rc" -ne 0 ]; then
  # Their failures again, at the end where CI's excerpt looks.
  sed -n '/^== the output of /,$p; /^FAIL  /p' "$WINE_LOG" | tail -n 400
  rm -f "$WINE_LOG"
  echo "the wine tests failed (scripts/test-wine.sh, above)"
  exit 1
fi
rm -f "$WINE_LOG"
