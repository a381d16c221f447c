"""Reference speech probabilities and segments from faster-whisper's Silero VAD.

Reads float32 little-endian 16 kHz mono files named on the command line and
prints one JSON object per file: {"probs": [...], "segments": [[start, end], ...]}
with faster-whisper 1.2.1's default VadOptions except speech_pad_ms (argv[1])."""
import json, sys

import numpy as np
from faster_whisper.vad import VadOptions, get_speech_timestamps, get_vad_model

pad = int(sys.argv[1])
model = get_vad_model()
for path in sys.argv[2:]:
    audio = np.fromfile(path, dtype="<f4")
    padded = np.pad(audio, (0, 512 - audio.shape[0] % 512))
    probs = model(padded)
    segs = get_speech_timestamps(audio, VadOptions(speech_pad_ms=pad))
    print(json.dumps({"probs": [float(p) for p in probs], "segments": [[s["start"], s["end"]] for s in segs]}))
