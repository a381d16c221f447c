"""What bench_early.py and bench_held.py share: the real-speech set's clips as
they are and long recordings joined from one source's consecutive clips, each
followed by a pause of room noise, and `whisperkey transcribe --json` on them.
"""
import json, os, subprocess, sys

# The pauses before the key is let go that every recording is tried with.
TAILS = (0.4, 1.0)
CLIPS, JOINED = "clips as they are", "joined 20-60 s"


def sox(*args):
    subprocess.run(["sox", *args], check=True, capture_output=True)


def noise(path, seconds):
    # Room noise: pink noise about 50 dB below full scale; -R: the same every run.
    sox("-R", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "synth", str(seconds), "pinknoise", "vol", "0.003")


def ours(a, files, env, full_window=True, flags=()):
    """whisperkey transcribe --json with flags on files: its results by file."""
    cmd = [a.binary, "transcribe", "--json", *flags, "--language", "en", "--model", a.model, "--compute-type", "int8",
           "--threads", str(a.threads), "--beam-size", str(a.beam)] + (["--full-window"] if full_window else [])
    out = subprocess.run(cmd + files, capture_output=True, text=True, env={**os.environ, **env})
    if out.returncode:
        sys.exit(f"whisperkey transcribe{''.join(' ' + f for f in flags)} failed: {out.stderr[-2000:]}")
    return {j["file"]: j for j in map(json.loads, out.stdout.splitlines())}


def recordings(a, long, tmp, clips=True, joined=True):
    """The recordings in tmp: with clips every clip of a.speech's manifest, with
    joined each of long's (name: the clips it joins with 0.3 s of room noise),
    each followed by every pause in TAILS. Returns the sources (name: (path,
    reference)) and the recordings as (group, tail, path, reference)."""
    refs = {}
    for line in open(os.path.join(a.speech, "manifest.tsv")):
        name, ref = line.rstrip("\n").split("\t")[:2]
        refs[name[:-4]] = ref
    gap = os.path.join(tmp, "gap.wav")
    noise(gap, 0.3)
    sources = {n: (os.path.join(a.speech, n + ".wav"), r) for n, r in refs.items()} if clips else {}
    for name, parts in (long if joined else {}).items():
        out = os.path.join(tmp, name + ".wav")
        files = []
        for p in parts:
            files += [os.path.join(a.speech, p + ".wav"), gap]
        sox(*files[:-1], "-r", "16000", "-c", "1", "-b", "16", out)
        sources[name] = (out, " ".join(refs[p] for p in parts))
    recs = []
    for tail in TAILS:
        pad = os.path.join(tmp, f"tail{tail}.wav")
        noise(pad, tail)
        for name, (src, ref) in sources.items():
            norm16 = os.path.join(tmp, f"{name}.16k.wav")
            if not os.path.exists(norm16):
                sox(src, "-r", "16000", "-c", "1", "-b", "16", norm16)
            out = os.path.join(tmp, f"{name}+{tail}.wav")
            sox(norm16, pad, out)
            recs.append((JOINED if name in long else CLIPS, tail, out, ref))
    return sources, recs


def groups():
    """The table's rows: (label, whether a recording belongs)."""
    rows = [("all", lambda c: True)]
    for g in (CLIPS, JOINED):
        for t in TAILS:
            rows.append((f"{g}, {t} s pause", lambda c, g=g, t=t: c[0] == g and c[1] == t))
    return rows
