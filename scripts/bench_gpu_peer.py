"""faster-whisper's warm decode time on the clips scripts/gpu-check.sh times
whisperkey on, in one process per (model, compute type), as JSON lines:
{"model", "compute_type", "file", "seconds", "text", "load_seconds"}.

Audio goes in as samples (16 kHz float32), as whisperkey's does, so PyAV,
which faster-whisper uses only to decode files, is not needed: where it is
not installed, a placeholder module stands in and is never called.
  python3 bench_gpu_peer.py --device cuda --model DIR --compute-type float16 --runs 5 CLIP...
"""
import argparse, json, sys, time, types, wave

import numpy as np

try:
    import av  # noqa: F401
except ImportError:
    sys.modules["av"] = types.ModuleType("av")  # never called: samples are passed in

from faster_whisper import WhisperModel


def samples(path):
    with wave.open(path) as w:
        if w.getframerate() != 16000 or w.getnchannels() != 1 or w.getsampwidth() != 2:
            sys.exit(f"{path}: want 16 kHz mono 16-bit")
        return np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--model", required=True)
    ap.add_argument("--compute-type", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("clips", nargs="+")
    a = ap.parse_args()
    t0 = time.perf_counter()
    m = WhisperModel(a.model, device=a.device, compute_type=a.compute_type)
    load = time.perf_counter() - t0
    clips = [(c, samples(c)) for c in a.clips]
    for run in range(a.runs + 1):  # run 0 warms up
        for path, x in clips:
            t = time.perf_counter()
            segs, _ = m.transcribe(x, language="en", beam_size=a.beam)
            text = "".join(s.text for s in segs).strip()
            took = time.perf_counter() - t
            if run:
                print(json.dumps({"model": a.model, "compute_type": a.compute_type, "file": path,
                                  "seconds": took, "text": text, "load_seconds": load}), flush=True)


if __name__ == "__main__":
    main()
