#!/usr/bin/env bash
# Fuzzes every parser of untrusted bytes briefly (FUZZTIME each, default 10s):
# the worker frame reader, the WAV decoder, every audio decoder (with a
# memory bound derived from the audio limit), model.bin, the tokenizer files,
# the config file and the Hugging Face API answers. Inputs that fail are
# saved under the package's testdata/fuzz and then run by every `go test`.
set -euo pipefail
FUZZTIME="${FUZZTIME:-10s}"
targets=(
  ./internal/engine:FuzzReadFrame
  ./internal/engine:FuzzFrameRoundTrip
  ./internal/audio:FuzzDecodeWAV
  ./internal/audio:FuzzDecodeAll
  ./internal/models/ct2bin:FuzzInspectModelBin
  ./internal/whisper:FuzzTokenizerFiles
  ./internal/config:FuzzParse
  ./internal/models:FuzzHubAnswers
)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "${targets[@]}"; do
  pkg=${t%%:*} name=${t##*:}
  echo "== fuzz $name ($pkg, $FUZZTIME)"
  for try in 1 2; do
    rc=0
    # Each new interesting input is minimized before it counts, up to a
    # minute by default: FuzzTokenizerFiles spent most of its 10 s there
    # (6-155 execs), and one still minimizing when the time was up ended
    # "context deadline exceeded", twice in a row in one full run. A hundred
    # tries per input keeps the time for fuzzing; a failing input is still
    # written.
    go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 100x "$pkg" 2>&1 | tee "$out" || rc=$?
    [ "$rc" -eq 0 ] && break
    # Go's fuzzer sometimes ends a run whose time is up with "context
    # deadline exceeded" and no failing input: its own timing, not a finding.
    if [ "$try" -eq 1 ] && grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
      echo "fuzz: $name stopped on Go's own fuzzing deadline with no failing input; running it again"
      continue
    fi
    exit "$rc"
  done
done
