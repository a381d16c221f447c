#!/usr/bin/env bash
# make bench: whisperkey vs faster-whisper on the same CTranslate2 model, audio,
# compute type, threads and beam size; then Go micro-benchmarks. Results are
# printed as Markdown for docs/benchmarks.md.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
run() { "$CACHE/venv/bin/python" scripts/bench.py --binary build/whisperkey --label "$1" \
  --model "$CACHE/models/whisper-base" --runs "${BENCH_RUNS:-5}" --threads "${BENCH_THREADS:-2}"; echo; }
echo "## whisperkey transcribe vs faster-whisper 1.2.1 (CPU)"
echo
WHISPERKEY_ENGINE_ROOT="$PWD/build/engine" run "whisperkey, engine: $(cat build/engine/cpu/BACKEND)"
# The other CPU backend, when it has been built (ENGINE_BACKEND=ruy make engine).
RUY="$CACHE/cargo-target-ruy/release/libct2engine.so"
if [ -f "$RUY" ]; then
  R=$(mktemp -d); mkdir -p "$R/cpu"; cp "$RUY" "$R/cpu/"
  WHISPERKEY_ENGINE_ROOT="$R" run "whisperkey, engine: ruy (CTranslate2 compiled by ct2rs)"
fi
export WHISPERKEY_ENGINE_ROOT="$PWD/build/engine"
# Short dictations: by length, real speech, full window vs default vs faster-whisper.
bash scripts/speech.sh >/dev/null
bash scripts/vad.sh >/dev/null
for beam in 5 1; do
  echo "### Real speech by length, beam $beam"
  echo
  "$CACHE/venv/bin/python" scripts/bench_short.py --binary build/whisperkey --model "$CACHE/models/whisper-base" \
    --speech "$CACHE/speech" --python "$CACHE/venv/bin/python" --runs "${BENCH_SHORT_RUNS:-3}" \
    --threads "${BENCH_THREADS:-2}" --beam "$beam"
  echo
done
echo "### Pooled WER on the real-speech set: default, short window, vocabulary, faster-whisper"
echo
"$CACHE/venv/bin/python" scripts/bench_wer.py --binary build/whisperkey --model "$CACHE/models/whisper-base" \
  --speech "$CACHE/speech" --python "$CACHE/venv/bin/python" --threads "${BENCH_THREADS:-2}"
echo
echo "### Accuracy decisions on the big real-speech set (issue #47)"
echo
bash scripts/speech-set.sh >/dev/null
# Whisper's English normaliser, pinned, in a folder of its own (not the venv).
NORM="$CACHE/bench-py"
[ -f "$NORM/.complete-1" ] || { "$CACHE/venv/bin/python" -m pip install -q --no-deps --target "$NORM" \
  whisper-normalizer==0.1.12 regex==2026.11.19 more-itertools==11.2.1 indic-numtowords==1.1.0 && touch "$NORM/.complete-1"; }
PYTHONPATH="$NORM" "$CACHE/venv/bin/python" scripts/bench_defaults.py --binary build/whisperkey \
  --model "$CACHE/models/whisper-base" --set "$CACHE/speech-set" --python "$CACHE/venv/bin/python" \
  --threads "${BENCH_THREADS:-2}" --cache "$CACHE/bench-defaults"
echo
echo "### Spoken commands checked by the model (issue #51)"
echo
"$CACHE/venv/bin/python" scripts/bench_commands.py --binary build/whisperkey --model "$CACHE/models/whisper-base" \
  --set "$CACHE/speech-set" --threads "${BENCH_THREADS:-2}" --cache "$CACHE/bench-commands"
echo
echo "### Text ready at the release: accuracy of the cut audio (issue #33)"
echo
"$CACHE/venv/bin/python" scripts/bench_early.py --binary build/whisperkey --model "$CACHE/models/whisper-base" \
  --speech "$CACHE/speech" --python "$CACHE/venv/bin/python" --threads "${BENCH_THREADS:-2}"
echo
echo "### Go micro-benchmarks"
echo '```'
go test -run '^$' -bench 'LogMel|Resample|LoadTokenizer|FirstSample' -benchtime 20x ./internal/whisper/ ./internal/audio/ 2>&1 | grep -E '^(Benchmark|goos|cpu)'
go test -run '^$' -bench 'Speech|Stream' -benchtime 20x ./internal/vad/ 2>&1 | grep -E '^Benchmark'
echo '```'
echo
echo "## whisperkey serve (OpenAI-compatible API over loopback)"
echo
"$CACHE/venv/bin/python" scripts/bench_serve.py --binary build/whisperkey --model "$CACHE/models/whisper-base" \
  --threads "${BENCH_THREADS:-2}" --requests "${BENCH_SERVE_REQUESTS:-12}"
echo
echo '```'
go test -run '^$' -bench 'RemoteOverhead' -benchtime 10x ./internal/remote/ 2>&1 | grep -E '^(Benchmark|cpu)'
echo '```'
if [ -n "${DISPLAY:-}" ] || [ "${BENCH_APP:-1}" = 1 ]; then
  bash scripts/testenv.sh go test -run '^$' -bench 'ReleaseToPaste' -benchtime 5x -timeout 120m ./internal/e2e 2>&1 | grep -E '^(Benchmark|    )' || true
fi
