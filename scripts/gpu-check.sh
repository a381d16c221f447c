#!/usr/bin/env bash
# The CUDA checks, on a machine with an NVIDIA GPU (CI has none), after
# scripts/gpu-build.sh. Everything it finds goes to $GPU_OUT as files:
#   scripts/gpu-check.sh clips   here, with espeak-ng: the benchmark clips into the cache
#   scripts/gpu-check.sh run     there: probes, doctor, transcribe, the switch and
#                                crash test, the benchmark
#   scripts/gpu-check.sh bench   the benchmark alone (BENCH_DEVICE=cpu for the CPU rows)
#   scripts/gpu-check.sh transcribe   the clips alone (TRANSCRIBE_DEVICE=cpu for the CPU's words)
# Inputs: build/whisperkey, build/engine/{cpu,cuda}, $WHISPERKEY_CACHE/models
# (base, tiny.en) and speech (scripts/speech.sh), $BACKEND_TEST (go test -c of
# internal/backend). No step stops the others: each one's failure is written down.
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
export WHISPERKEY_CACHE="$CACHE"
# The GPU verdicts land here, apart from the user's own.
export XDG_STATE_HOME="${XDG_STATE_HOME:-$CACHE/gpu-check-state}"
OUT="${GPU_OUT:-build/gpu-check}"
CLIPS="$CACHE/gpu-clips"
WK="$PWD/build/whisperkey"
export WHISPERKEY_ENGINE_ROOT="${WHISPERKEY_ENGINE_ROOT:-$PWD/build/engine}"
RUNS="${BENCH_RUNS:-5}"
mkdir -p "$OUT"
step() { echo "== $* ($(date +%T))"; }

clips() {
  mkdir -p "$CLIPS"
  local s=(
    "Call me back later."
    "Remember to buy milk, bread and eggs on the way home."
    "Please call me back when you get this message."
    "The coffee machine on the second floor is broken again."
    "I think we should hire two more engineers for the mobile team."
    "Our new website will launch next month with a fresh design."
    "The meeting has been moved to Thursday afternoon at three o'clock."
  )
  local tmp; tmp=$(mktemp -d)
  espeak-ng -w "$tmp/a.wav" -- "${s[0]}"
  sox "$tmp/a.wav" -r 16000 -c 1 -b 16 "$CLIPS/speech-2s.wav" pad 0.2 0.2
  espeak-ng -w "$tmp/b.wav" -- "${s[1]}"
  espeak-ng -w "$tmp/c.wav" -- "${s[0]}"
  sox "$tmp/b.wav" "$tmp/c.wav" -r 16000 -c 1 -b 16 "$CLIPS/speech-5s.wav" pad 0.2 0.2
  # Sentences until the clip nearly fills one 30-s window.
  local parts=() i=1
  while :; do
    espeak-ng -w "$tmp/p$i.wav" -- "${s[$(( (i - 1) % 6 + 1 ))]}"
    parts+=("$tmp/p$i.wav")
    sox "${parts[@]}" -r 16000 -c 1 -b 16 "$tmp/long.wav"
    [ "$(soxi -D "$tmp/long.wav" | cut -d. -f1)" -ge 28 ] && break
    i=$((i + 1))
  done
  sox "$tmp/long.wav" "$CLIPS/speech-30s.wav" trim 0 29.5
  for f in "$CLIPS"/*.wav; do echo "$f $(soxi -D "$f") s"; done
  rm -rf "$tmp"
}

probes() {
  step probes
  nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
  nvidia-smi --query-gpu=name,pci.device_id,driver_version,memory.total,compute_cap --format=csv,noheader \
    >"$OUT/nvidia-smi.csv" 2>&1
  nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1
  nvidia-smi -L >"$OUT/nvidia-smi-L.txt" 2>&1
  # What the sysfs probe reads, as the txtar the fixtures use.
  {
    echo "$(nvidia-smi -L | head -1), $(uname -r)"
    for f in /sys/class/drm/card*/device/{vendor,device,subsystem_device,boot_vga} \
      /sys/class/drm/card*/status /sys/module/nvidia/version /proc/sys/kernel/osrelease; do
      [ -r "$f" ] && printf -- '-- %s --\n%s\n' "${f#/}" "$(cat "$f")"
    done
    echo "-- pci (not read by the probe) --"
    for d in /sys/bus/pci/devices/*; do
      [ "$(cat "$d/vendor")" = 0x10de ] && echo "${d##*/} $(cat "$d/class") $(cat "$d/vendor") $(cat "$d/device")"
    done
  } >"$OUT/sysfs.txtar" 2>&1
  ls -la /usr/local/cuda*/lib64/libcublas* /usr/local/cuda*/lib64/libcudnn* >"$OUT/cuda-libs.txt" 2>&1
  nvcc --version >>"$OUT/cuda-libs.txt" 2>&1
}

doctor() {
  step doctor
  "$WK" doctor --model base >"$OUT/doctor.txt" 2>&1
  echo "rc=$?" >>"$OUT/doctor.txt"
  "$WK" doctor --model base --json >"$OUT/doctor.json" 2>"$OUT/doctor-json.err"
}

# The espeak and real-speech clips on the GPU (TRANSCRIBE_DEVICE=cpu: the
# CPU's words to compare with), in one process; the first load verifies the
# GPU against the CPU (backend.Verify) and caches the verdict.
transcribe() {
  local device="${TRANSCRIBE_DEVICE:-cuda}"
  step "transcribe on $device"
  local files=("$CLIPS"/speech-*.wav)
  while IFS=$'\t' read -r f _; do files+=("$CACHE/speech/$f"); done <"$CACHE/speech/manifest.tsv"
  for m in base tiny.en; do
    "$WK" transcribe --device "$device" --model "$m" --json --verbose "${files[@]}" \
      >"$OUT/transcribe-$device-$m.jsonl" 2>"$OUT/transcribe-$device-$m.log"
    echo "rc=$?" >>"$OUT/transcribe-$device-$m.log"
  done
  [ "$device" = cpu ] && return
  cp "$XDG_STATE_HOME/whisperkey/gpu-verify.json" "$OUT/" 2>/dev/null
  grep -h "GPU verified\|GPU not used" "$OUT"/transcribe-cuda-*.log >"$OUT/verify.txt"
}

switches() {
  step "20 switches on CUDA, then a killed worker"
  (cd internal/backend && WHISPERKEY_REQUIRE_GPU=1 "$BACKEND_TEST" -test.run '^TestCUDASwitchesAndCrash$' -test.v -test.timeout 8m) \
    >"$OUT/cuda-switches.log" 2>&1
  echo "rc=$?" >>"$OUT/cuda-switches.log"
}

# Warm decode time: each (model, compute type) in one process, the three
# clips RUNS times after a warm-up; GPU memory sampled meanwhile.
bench() {
  local device="${BENCH_DEVICE:-cuda}" types="${BENCH_TYPES:-float16 int8_float16}"
  [ "$device" = cpu ] && types="${BENCH_TYPES:-int8}"
  step "bench on $device"
  local files=() i
  for i in $(seq 0 "$RUNS"); do files+=("$CLIPS/speech-2s.wav" "$CLIPS/speech-5s.wav" "$CLIPS/speech-30s.wav"); done
  for m in base tiny.en; do
    for ct in $types; do
      local tag="$device-$m-$ct" smi=""
      if [ "$device" = cuda ]; then
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$OUT/mem-$tag.txt" 2>&1 &
        smi=$!
      fi
      "$WK" transcribe --device "$device" --compute-type "$ct" --model "$m" --language en --json "${files[@]}" \
        >"$OUT/bench-$tag.jsonl" 2>"$OUT/bench-$tag.log"
      echo "rc=$?" >>"$OUT/bench-$tag.log"
      [ -n "$smi" ] && kill "$smi" 2>/dev/null
    done
  done
}

case "${1:-run}" in
  clips) clips ;;
  bench) bench ;;
  transcribe) transcribe ;;
  run)
    [ -f "$CLIPS/speech-30s.wav" ] || { echo "gpu-check: no clips in $CLIPS (scripts/gpu-check.sh clips, where espeak-ng is)" >&2; exit 2; }
    probes
    doctor
    transcribe
    switches
    bench
    step done
    ;;
  *) echo "usage: scripts/gpu-check.sh clips|run|bench" >&2; exit 2 ;;
esac
