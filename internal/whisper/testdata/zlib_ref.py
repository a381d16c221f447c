"""Prints len(zlib.compress(text.encode())) for each text of a JSON list,
one a line: the denominator of faster-whisper's compression ratio."""
import json
import sys
import zlib

for text in json.load(open(sys.argv[1], encoding="utf-8")):
    print(len(zlib.compress(text.encode("utf-8"))))
