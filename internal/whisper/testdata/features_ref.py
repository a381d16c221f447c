# Reference log-mel features from faster-whisper's own FeatureExtractor.
# usage: features_ref.py JOBS.json
# JOBS: [{"in": "x.f32", "n_mels": 80, "out": "y.f32"}, ...]; samples and
# features are little-endian float32; prints one "n_mels frames" line per job.
import json
import sys

import numpy as np
from faster_whisper.feature_extractor import FeatureExtractor

with open(sys.argv[1], encoding="utf-8") as f:
    jobs = json.load(f)
extractors = {}
for job in jobs:
    n_mels = job["n_mels"]
    if n_mels not in extractors:
        extractors[n_mels] = FeatureExtractor(feature_size=n_mels)
    samples = np.fromfile(job["in"], dtype="<f4")
    feats = extractors[n_mels](samples)
    np.ascontiguousarray(feats, dtype="<f4").tofile(job["out"])
    print(feats.shape[0], feats.shape[1])
