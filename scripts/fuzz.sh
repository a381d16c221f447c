#!/usr/bin/env bash
# Fuzzes every parser of untrusted bytes briefly (FUZZTIME each, default 10s):
# the worker frame reader, the WAV decoder, model.bin, the tokenizer files,
# the config file and the Hugging Face API answers. Inputs that fail are
# saved under the package's testdata/fuzz and then run by every `go test`.
set -euo pipefail
FUZZTIME="${FUZZTIME:-10s}"
targets=(
  ./internal/engine:FuzzReadFrame
  ./internal/engine:FuzzFrameRoundTrip
  ./internal/audio:FuzzDecodeWAV
  ./internal/models/ct2bin:FuzzInspectModelBin
  ./internal/whisper:FuzzTokenizerFiles
  ./internal/config:FuzzParse
  ./internal/models:FuzzHubAnswers
)
for t in "${targets[@]}"; do
  pkg=${t%%:*} name=${t##*:}
  echo "== fuzz $name ($pkg, $FUZZTIME)"
  go test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg"
done
