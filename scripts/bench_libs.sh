#!/usr/bin/env bash
# Measures the two hand-written parts of internal/whisper against libraries
# (docs/benchmarks.md, "Hand-written or a library"):
#  - zlibSize against Python's zlib (exactness on the repository's corpus, the
#    real-speech transcripts and adversarial texts), modernc.org/z (zlib in
#    pure Go) and compress/zlib, and the speed of each; the comparison is its
#    own module (scripts/libcompare) so modernc.org/z stays out of go.mod;
#  - the tokenizer.json scanner against encoding/json, and with
#    GOEXPERIMENT=jsonv2 against encoding/json/v2 and its jsontext decoder,
#    on the real tokenizer.json files (time, bytes allocated, peak RSS).
#   scripts/bench_libs.sh    (needs the venv and models scripts/test.sh fetches)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-$HOME/.cache/whisperkey}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -r scripts/libcompare "$W/lc"
sed 's/^package whisper$/package libcompare/' internal/whisper/zlibsize.go >"$W/lc/zlibsize.go"
# The repository's own corpus, compressionTexts, from the whisper test.
{ printf 'package libcompare\n\nimport (\n\t"math/rand/v2"\n\t"strings"\n)\n\n'
  sed -n '/^func compressionTexts/,/^}/p' internal/whisper/zlibsize_test.go; } >"$W/lc/corpus_test.go"
echo "== zlib: sizes that differ from Python's zlib.compress (level 6)"
(cd "$W/lc" && LIBCOMPARE_PYTHON="$CACHE/venv/bin/python" LIBCOMPARE_MANIFEST="$CACHE/speech/manifest.tsv" \
  LIBCOMPARE_TEXTS="$W/texts.json" go test -count=1 -v -run 'TestExactness|TestWritePyBench' . | grep -E '^\||FAIL|ok')
echo "== zlib: speed on the corpus's 1209 window-sized texts"
(cd "$W/lc" && go test -count=1 -run '^$' -bench . -benchtime 20x -count 5 . | grep Benchmark)
"$CACHE/venv/bin/python" scripts/libcompare/pytime.py "$W/texts.json"
echo "== tokenizer.json: our scanner and encoding/json"
go test -count=1 -run '^TestTokenizerJSONMatchesLibraries$' -v ./internal/whisper | grep -E '^(---|ok|FAIL)|same'
go test -count=1 -run '^$' -bench 'TokenizerJSON' -benchtime 10x -count 5 ./internal/whisper | grep Benchmark
echo "== tokenizer.json: encoding/json/v2 and jsontext (GOEXPERIMENT=jsonv2)"
GOEXPERIMENT=jsonv2 go test -count=1 -run '^TestTokenizerJSONMatchesLibraries$' -v ./internal/whisper | grep -E '^(---|ok|FAIL)|same'
GOEXPERIMENT=jsonv2 go test -count=1 -run '^$' -bench 'TokenizerJSON/(v2|jsontext)' -benchtime 10x -count 5 ./internal/whisper | grep Benchmark
echo "== tokenizer.json: peak RSS of one load (VmHWM), baseline first"
GOEXPERIMENT=jsonv2 go test -c -o "$W/whisper.test" ./internal/whisper
for m in "$CACHE"/models/whisper-base "$CACHE"/models/whisper-tiny.en; do
  for p in none ours encoding/json v2 jsontext; do
    (cd internal/whisper && TOKENIZER_JSON_PEAK="$p" TOKENIZER_JSON_FILE="$m/tokenizer.json" "$W/whisper.test" -test.run '^TestTokenizerJSONPeak$' -test.v | grep 'VmHWM')
  done
done
