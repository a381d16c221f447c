#!/usr/bin/env bash
# make bench: whisperkey vs faster-whisper on the same CTranslate2 model, audio,
# compute type, threads and beam size; then Go micro-benchmarks. Results are
# printed as Markdown for docs/benchmarks.md.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-$HOME/.cache/whisperkey}"
export WHISPERKEY_ENGINE_ROOT="$PWD/build/engine"
"$CACHE/venv/bin/python" scripts/bench.py --binary build/whisperkey \
  --model "$CACHE/models/whisper-base" --runs "${BENCH_RUNS:-5}" --threads "${BENCH_THREADS:-2}"
echo
echo "### Go micro-benchmarks"
echo '```'
go test -run '^$' -bench 'LogMel|Resample|LoadTokenizer' -benchtime 20x ./internal/whisper/ ./internal/audio/ 2>&1 | grep -E '^(Benchmark|goos|cpu)'
echo '```'
if [ -n "${DISPLAY:-}" ] || [ "${BENCH_APP:-1}" = 1 ]; then
  bash scripts/testenv.sh go test -run '^$' -bench 'ReleaseToPaste' -benchtime 10x -timeout 30m . 2>&1 | grep -E '^(Benchmark|    )' || true
fi
