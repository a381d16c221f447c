# Reference tokenization from Hugging Face tokenizers and faster-whisper.
# usage: tokenizer_ref.py MODEL_DIR IN.json OUT.json
# IN: {"encode": [str, ...], "decode": [[id, ...], ...]}
# OUT: {"encode": [[id, ...], ...], "decode": [str, ...], "suppress": [id, ...]}
import json
import sys

import tokenizers
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_suppressed_tokens

model_dir, in_path, out_path = sys.argv[1:4]
hf = tokenizers.Tokenizer.from_file(model_dir + "/tokenizer.json")
with open(in_path, encoding="utf-8") as f:
    req = json.load(f)
multilingual = hf.token_to_id("<|en|>") is not None and hf.token_to_id("<|startoftranscript|>") == 50258
tok = Tokenizer(hf, multilingual, task="transcribe", language="en")
out = {
    "encode": [hf.encode(s, add_special_tokens=False).ids for s in req["encode"]],
    "decode": [tok.decode(ids) for ids in req["decode"]],
    "suppress": list(get_suppressed_tokens(tok, [-1])),
}
with open(out_path, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=True)
