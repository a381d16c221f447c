#!/usr/bin/env bash
# The test suite; run through scripts/testenv.sh (make test does) so the
# display, D-Bus and microphone are real.
set -euo pipefail
export WHISPERKEY_ENGINE_DIR="$PWD/build/engine/cpu"
export WHISPERKEY_TEST_DISALLOW_SKIP="${WHISPERKEY_TEST_DISALLOW_SKIP:-1}"
export WHISPERKEY_REQUIRE_INSTALLER=1
step() { printf '\n== %s\n' "$*"; }

step "lint: gofmt, vet (Linux and Windows), cargo fmt and clippy, staticcheck, dead code"
bash scripts/lint.sh

step "Windows exe, installer, and Windows unit tests under wine"
bash scripts/windows.sh
bash scripts/installer.sh
bash scripts/wine-test.sh

step "real speech and the speech detector (scripts/speech.sh, scripts/vad.sh)"
bash scripts/speech.sh
bash scripts/vad.sh

step "go test (packages)"
go test -count=1 -p 2 -timeout 40m $(go list ./... | grep -v '^github.com/whisperkey/whisperkey$') 2>&1 | tee /tmp/whisperkey-test.log
# The end-to-end tests play speech into a virtual microphone in real time, as a
# person would speak; they run alone, as on a user's desktop, not beside the
# CPU-heavy packages above.
step "go test (end to end: the real app)"
go test -count=1 -timeout 20m . 2>&1 | tee -a /tmp/whisperkey-test.log

step "fuzz every parser of untrusted bytes briefly"
bash scripts/fuzz.sh
