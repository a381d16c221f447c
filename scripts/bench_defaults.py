"""The accuracy decision table (issue #47): pooled WER of each decoding on the
big real-speech set (scripts/speech-set.sh), on its tuning part and its
held-out part, with a paired per-recording comparison against whisperkey's
full window and against faster-whisper 1.2.1 on the same CTranslate2 model.

Each configuration decodes the set once; its texts are cached under
--cache by (binary, model, flags, threads) and each file's content, so a
rerun of the table decodes only what is new. Scored with Whisper's English
normaliser (the whisper-normalizer package, installed by scripts/bench.sh
into its own folder). Prints Markdown.
"""
import argparse, hashlib, json, os, random, subprocess, sys

sys.path.insert(0, os.path.dirname(__file__))
from bench_short import FW  # noqa: E402  faster-whisper's decode loop

# (label, kind, flags). "default" is the CPU default: decoding.short_window
# auto is the short window on a CPU, beam 5 (config.example.yaml).
CONFIGS = [
    ("whisperkey default on the CPU: short window ≤ 18 s, beam 5", "ours", ["--short-window", "--beam-size", "5"]),
    ("whisperkey full window, beam 5 (the GPU default)", "ours", ["--full-window", "--beam-size", "5"]),
    ("faster-whisper 1.2.1, beam 5, no VAD", "fw", ["5"]),
    ("default without the speech detector (no gate, no cut after the speech)", "ours",
     ["--short-window", "--beam-size", "5", "--speech-detector=false"]),
    ("default without the temperature fallback (temperature 0 only)", "ours",
     ["--short-window", "--beam-size", "5", "--temperature-fallback=false"]),
    ("default without the no-speech rule (threshold 0)", "ours",
     ["--short-window", "--beam-size", "5", "--no-speech-threshold", "0"]),
    ("whisperkey short window ≤ 18 s, greedy", "ours", ["--short-window", "--beam-size", "1"]),
    ("whisperkey full window, greedy", "ours", ["--full-window", "--beam-size", "1"]),
]
DEFAULT, FULL, FW_LABEL = CONFIGS[0][0], CONFIGS[1][0], CONFIGS[2][0]
# The short window's old limit (10 s, until 2026-11-27), composed from the two
# beam-5 runs: clips up to 10 s as decoded short, longer ones as decoded full.
# Exact but for the end-of-speech cut, which could bring a clip of 10–10.5 s
# under a 10 s limit (no clip of the set is in that band).
LIMIT10 = "whisperkey short window ≤ 10 s, beam 5 (composed: see the notes)"


def digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def decode(a, kind, flags, files, key):
    """Each file's text and decode time under one configuration, keyed by the
    file's content: a file already decoded under key is not decoded again,
    so a set that gains or loses a clip costs only the new clips."""
    path = os.path.join(a.cache, key + ".json")
    done = json.load(open(path)) if os.path.exists(path) else {}
    content = {f: hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
    todo = [f for f in files if content[f] not in done]
    if todo and a.cached_only:
        return None
    if todo:
        if kind == "ours":
            cmd = [a.binary, "transcribe", "--json", "--language", "en", "--model", a.model, "--compute-type", "int8",
                   "--threads", str(a.threads), *flags, *todo]
        else:
            cmd = [a.python, "-c", FW, a.model, str(a.threads), flags[0], "0", *todo]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"{' '.join(cmd[:3])} {' '.join(flags)} failed: {out.stderr[-2000:]}")
        for f, line in zip(todo, out.stdout.splitlines()):
            j = json.loads(line)
            if j["file"] != f:
                sys.exit(f"{cmd[0]} answered for {j['file']} where {f} was next")
            done[content[f]] = {"text": j["text"], "ms": j.get("timings", {}).get("total_ns", 0) / 1e6}
        os.makedirs(a.cache, exist_ok=True)
        with open(path + ".part", "w") as f:
            json.dump(done, f)
        os.replace(path + ".part", path)
    return {os.path.basename(f): done[content[f]] for f in files}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--set", required=True, help="the folder scripts/speech-set.sh fills")
    ap.add_argument("--python", required=True, help="the venv's python, with faster-whisper")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", required=True, help="folder for each configuration's cached texts")
    ap.add_argument("--bootstrap", type=int, default=5000)
    ap.add_argument("--cached-only", action="store_true",
                    help="decode nothing: the table of the configurations already in --cache")
    ap.add_argument("--first", type=int, default=len(CONFIGS),
                    help="decode only the first N configurations; the others as --cached-only")
    ap.add_argument("--part", choices=("tune", "held-out"),
                    help="only this part of the set (a quicker check; the decision needs both)")
    a = ap.parse_args()
    import jiwer
    from whisper_normalizer.english import EnglishTextNormalizer
    norm = EnglishTextNormalizer()

    manifest = open(os.path.join(a.set, "manifest.tsv"), "rb").read()
    clips = [line.split("\t") for line in manifest.decode().splitlines()]
    clips = [c for c in clips if a.part in (None, c[3])]
    files = [os.path.join(a.set, c[0]) for c in clips]
    seconds = {c[0]: os.path.getsize(f) / 32000 for c, f in zip(clips, files)}  # 16 kHz 16-bit, header aside
    binary = hashlib.sha256(open(a.binary, "rb").read()).hexdigest()
    runs = {}
    cached_only = a.cached_only
    for i, (label, kind, flags) in enumerate(CONFIGS):
        who = binary if kind == "ours" else "faster-whisper-1.2.1"
        a.cached_only = cached_only or i >= a.first
        res = decode(a, kind, flags, files, digest(who, os.path.realpath(a.model), flags, a.threads))
        if res is None:
            print(f"(not decoded yet, left out: {label})\n")
        else:
            runs[label] = res
    if DEFAULT in runs and FULL in runs:
        runs[LIMIT10] = {c[0]: runs[DEFAULT if seconds[c[0]] <= 10 else FULL][c[0]] for c in clips}

    refs = {c[0]: norm(c[1]) for c in clips}
    errs = {}
    for label, res in runs.items():
        errs[label] = {}
        for c in clips:
            m = jiwer.process_words(refs[c[0]], norm(res[c[0]]["text"]) or "-")
            errs[label][c[0]] = m.substitutions + m.deletions + m.insertions
    words = {n: len(r.split()) for n, r in refs.items()}

    def compare(label, other, names, rng):
        d = [errs[label][n] - errs[other][n] for n in names]
        w = [words[n] for n in names]
        better, worse = sum(x < 0 for x in d), sum(x > 0 for x in d)
        boot = []
        for _ in range(a.bootstrap):
            idx = [rng.randrange(len(names)) for _ in names]
            boot.append(100 * sum(d[i] for i in idx) / max(1, sum(w[i] for i in idx)))
        boot.sort()
        lo, hi = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
        return f"{better}/{worse}, {100 * sum(d) / sum(w):+.1f} [{lo:+.1f}, {hi:+.1f}]"

    print(f"Model {os.path.basename(os.path.realpath(a.model))}, int8, {a.threads} threads, language en; "
          f"bootstrap {a.bootstrap} resamples of the recordings, seed 47.\n")
    for part in (a.part,) if a.part else ("tune", "held-out"):
        names = [c[0] for c in clips if c[3] == part]
        n_words = sum(words[n] for n in names)
        print(f"#### {part} part: {len(names)} recordings, {n_words} reference words, "
              f"{sum(seconds[n] for n in names):.0f} s\n")
        print("| decoding | pooled WER | errors | vs full window: better/worse, Δ points [95 % CI] "
              "| vs faster-whisper: better/worse, Δ points [95 % CI] | median decode |")
        print("|---|---|---|---|---|---|")
        for label in runs:
            rng = random.Random(47)
            e = sum(errs[label][n] for n in names)
            vs_full = "–" if label == FULL or FULL not in runs else compare(label, FULL, names, rng)
            vs_fw = "–" if label == FW_LABEL or FW_LABEL not in runs else compare(label, FW_LABEL, names, rng)
            ms = sorted(runs[label][n]["ms"] for n in names if runs[label][n]["ms"])
            med = f"{ms[len(ms) // 2]:.0f} ms" if ms else "–"
            print(f"| {label} | {100 * e / n_words:.1f} % | {e} | {vs_full} | {vs_fw} | {med} |")
        print()
    kinds = sorted({c[2] for c in clips})
    print("#### Pooled WER by kind of recording (both parts)\n")
    print("| decoding | " + " | ".join(f"{k} ({sum(words[c[0]] for c in clips if c[2] == k)} words)" for k in kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for label in runs:
        cells = []
        for k in kinds:
            names = [c[0] for c in clips if c[2] == k]
            cells.append(f"{100 * sum(errs[label][n] for n in names) / sum(words[n] for n in names):.1f} %")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
