"""Prints len(zlib.compress(b)) for each base64 text of a JSON list, one a line."""
import base64
import json
import sys
import zlib

for t in json.load(open(sys.argv[1], encoding="utf-8")):
    print(len(zlib.compress(base64.b64decode(t))))
