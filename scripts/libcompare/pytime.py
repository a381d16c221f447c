"""Times Python's zlib.compress over the JSON list of texts the Go benchmark uses."""
import json
import sys
import time
import zlib

texts = [s.encode() for s in json.load(open(sys.argv[1], encoding="utf-8"))]
n = sum(map(len, texts))
best = None
for _ in range(5):
    start = time.perf_counter()
    for _ in range(20):
        for s in texts:
            zlib.compress(s)
    d = (time.perf_counter() - start) / 20
    best = d if best is None else min(best, d)
print(f"Python zlib.compress ({zlib.ZLIB_RUNTIME_VERSION}): {best * 1e3:.1f} ms for {len(texts)} texts, {n / best / 1e6:.1f} MB/s (best of 5)")
