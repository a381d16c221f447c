"""Warm decode time and WER by utterance length on real human speech:
whisperkey's full window (the default), its opt-in short window and
faster-whisper, on the same CTranslate2 model, int8, threads and beam.

whisperkey decodes every file in one process (`transcribe A.wav B.wav …`,
JSON Lines) and faster-whisper in one Python process; each clip is decoded
runs+1 times and the first (cold) decode is dropped. The clips are the
real-speech set of scripts/speech.sh.
"""
import argparse, json, os, statistics, subprocess, sys, time

FW = r"""
import json, sys, time
from faster_whisper import WhisperModel
model, threads, beam, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
m = WhisperModel(model, device="cpu", compute_type="int8", cpu_threads=threads)
for path in sys.argv[5:]:
    times = []
    for i in range(runs + 1):
        t = time.perf_counter()
        segs, _ = m.transcribe(path, language="en", beam_size=beam)
        text = "".join(s.text for s in segs).strip()
        if i:
            times.append(time.perf_counter() - t)
    print(json.dumps({"file": path, "text": text, "times": times}), flush=True)
"""

BUCKETS = [("1–2 s", 0.5, 2.0), ("3–5 s", 2.9, 5.0), ("10 s", 8.0, 12.0), ("25 s", 20.0, 30.0)]


ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
TITLES = {"mr": "mister", "mrs": "missus", "dr": "doctor"}


def number(w):
    if w in ONES:
        return ONES.index(w)
    if w in TENS:
        return 20 + 10 * TENS.index(w)
    return None


def norm(s):
    """As internal/whisper's WordErrorRate: words, numbers in digits, titles spelled."""
    words = "".join(c.lower() if c.isalnum() or c == " " else ("" if c == "'" else " ") for c in s).split()
    out, i = [], 0
    while i < len(words):
        w, n = words[i], number(words[i])
        if w in TITLES:
            w = TITLES[w]
        elif n is not None:
            u = number(words[i + 1]) if i + 1 < len(words) else None
            if n >= 20 and u is not None and 0 < u < 10:
                n, i = n + u, i + 1
            w = str(n)
        out.append(w)
        i += 1
    return " ".join(out)


def wer(refs, hyps):
    import jiwer
    return jiwer.wer([norm(r) for r in refs], [norm(h) or "-" for h in hyps])


def ours(a, files, window):
    cmd = [a.binary, "transcribe", "--json", "--language", "en", "--model", a.model, "--compute-type", "int8",
           "--threads", str(a.threads), "--beam-size", str(a.beam), f"--{window}-window"]
    # Each file runs+1 times in one process; the first decode of each is cold.
    out = subprocess.run(cmd + [f for f in files for _ in range(a.runs + 1)], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"whisperkey transcribe failed: {out.stderr[-2000:]}")
    res = {}
    for line in out.stdout.splitlines():
        j = json.loads(line)
        r = res.setdefault(j["file"], {"times": [], "paths": [], "n": 0})
        r["n"] += 1
        r["text"] = j["text"]
        if r["n"] > 1:
            r["times"].append(j["timings"]["total_ns"] / 1e9)
            r["paths"].append(j["path"])
    return res


def faster_whisper(a, files):
    out = subprocess.run([a.python, "-c", FW, a.model, str(a.threads), str(a.beam), str(a.runs)] + files,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"faster-whisper failed: {out.stderr[-2000:]}")
    return {j["file"]: j for j in map(json.loads, out.stdout.splitlines())}


def speech_args():
    """The arguments every real-speech benchmark takes (bench_wer.py too)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--speech", required=True, help="folder with manifest.tsv (scripts/speech.sh)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beam", type=int, default=5)
    return ap


def main():
    ap = speech_args()
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    import wave
    clips = []
    for line in open(os.path.join(a.speech, "manifest.tsv")):
        name, ref = line.rstrip("\n").split("\t")
        path = os.path.join(a.speech, name)
        with wave.open(path) as w:
            clips.append((path, ref, w.getnframes() / w.getframerate()))
    files = [c[0] for c in clips]
    full, default, fw = ours(a, files, "full"), ours(a, files, "short"), faster_whisper(a, files)
    print(f"model {os.path.basename(a.model)}, int8, {a.threads} threads, beam {a.beam}; median of {a.runs} warm decodes per clip\n")
    print("| length | clips | full window (default) | short window | faster-whisper | full / fw | short / fw | WER full / short / fw | short window kept |")
    print("|---|---|---|---|---|---|---|---|")
    for label, lo, hi in BUCKETS:
        cs = [c for c in clips if lo <= c[2] < hi]
        if not cs:
            continue
        med = lambda res: statistics.median(t for c in cs for t in res[c[0]]["times"])
        refs = [c[1] for c in cs]
        w = [wer(refs, [res[c[0]]["text"] for c in cs]) for res in (full, default, fw)]
        kept = sum(p == "short" for c in cs for p in default[c[0]]["paths"])
        total = sum(len(default[c[0]]["paths"]) for c in cs)
        mf, md, mw = med(full), med(default), med(fw)
        print(f"| {label} | {len(cs)} | {mf*1000:.0f} ms | {md*1000:.0f} ms | {mw*1000:.0f} ms | {mf/mw:.2f}× | **{md/mw:.2f}×** | "
              f"{w[0]:.3f} / {w[1]:.3f} / {w[2]:.3f} | {kept}/{total} |")
    print()
    print("Per clip (last decode's text; ✓ = same words as the full window):\n")
    print("| clip | s | full window | short window (path) | faster-whisper |")
    print("|---|---|---|---|---|")
    for path, ref, dur in clips:
        f, d, w = full[path]["text"], default[path]["text"], fw[path]["text"]
        same = "✓ " if norm(f) == norm(d) else ""
        print(f"| {os.path.basename(path)} | {dur:.1f} | {f} | {same}{d} ({default[path]['paths'][-1]}) | {w} |")


if __name__ == "__main__":
    main()
