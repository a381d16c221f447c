"""Accuracy of text ready at the release (issue #33), on the real-speech set.

Every clip as it is, and long recordings made by joining one speaker's
consecutive clips with 0.3 s of room noise, each followed by 0.4 s and by 1 s
of room noise (the pause before the key is let go). Decoded (a) whole, as the
app did before early transcription (no speech detector: the engine hears
the whole recording), (b) the new way: the audio cut 256 ms after the last
sound that could be speech -- what an early transcription during the hold
and a transcription at the release both hear, so the text is the same
either way (TestTextReadyAtRelease) -- and (c) faster-whisper 1.2.1 (no VAD)
on the same model, in the same run. Prints Markdown.
"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench_short import faster_whisper, norm, speech_args  # noqa: E402

# One speaker's consecutive clips, joined into 20-60 s recordings.
LONG = {
    "librivox_joined": ["librivox_0870", "librivox_0880", "librivox_0890", "librivox_0920", "librivox_0930"],
    "callhome_joined": ["callhome_%02d" % i for i in range(13)],
    "callhome_long_joined": ["callhome_10s", "callhome_25s"],
}


def sox(*args):
    subprocess.run(["sox", *args], check=True, capture_output=True)


def noise(path, seconds):
    # Room noise: pink noise about 50 dB below full scale; -R: the same every run.
    sox("-R", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "synth", str(seconds), "pinknoise", "vol", "0.003")


def ours(a, files, env, full_window=True):
    cmd = [a.binary, "transcribe", "--json", "--language", "en", "--model", a.model, "--compute-type", "int8",
           "--threads", str(a.threads), "--beam-size", str(a.beam)] + (["--full-window"] if full_window else [])
    out = subprocess.run(cmd + files, capture_output=True, text=True, env={**os.environ, **env})
    if out.returncode:
        sys.exit(f"whisperkey transcribe failed: {out.stderr[-2000:]}")
    return {j["file"]: j for j in map(json.loads, out.stdout.splitlines())}


def main():
    ap = speech_args()
    a = ap.parse_args()
    a.runs = 0
    import jiwer
    refs = {}
    for line in open(os.path.join(a.speech, "manifest.tsv")):
        name, ref = line.rstrip("\n").split("\t")
        refs[name[:-4]] = ref
    tmp = tempfile.mkdtemp(prefix="bench-early-")
    gap = os.path.join(tmp, "gap.wav")
    noise(gap, 0.3)
    sources = {n: (os.path.join(a.speech, n + ".wav"), r) for n, r in refs.items()}
    for name, parts in LONG.items():
        out = os.path.join(tmp, name + ".wav")
        files = []
        for p in parts:
            files += [os.path.join(a.speech, p + ".wav"), gap]
        sox(*files[:-1], "-r", "16000", "-c", "1", "-b", "16", out)
        sources[name] = (out, " ".join(refs[p] for p in parts))
    clips = []  # (group, tail, path, ref)
    for tail in (0.4, 1.0):
        pad = os.path.join(tmp, f"tail{tail}.wav")
        noise(pad, tail)
        for name, (src, ref) in sources.items():
            norm16 = os.path.join(tmp, f"{name}.16k.wav")
            if not os.path.exists(norm16):
                sox(src, "-r", "16000", "-c", "1", "-b", "16", norm16)
            out = os.path.join(tmp, f"{name}+{tail}.wav")
            sox(norm16, pad, out)
            group = "joined 20-60 s" if name in LONG else "clips as they are"
            clips.append((group, tail, out, ref))
    files = [c[2] for c in clips]
    empty = os.path.join(tmp, "no-vad")
    os.makedirs(empty)
    runs = {
        "(a) whole recording at the release (before)": ours(a, files, {"WHISPERKEY_VAD_DIR": empty}),
        "(b) cut after the speech: early or at the release (now)": ours(a, files, {}),
        "(c) faster-whisper 1.2.1 (no VAD)": faster_whisper(a, files),
        # What ships on a CPU: the short window under 10 s (docs/benchmarks.md#short-window).
        "(a) whole, CPU default window": ours(a, files, {"WHISPERKEY_VAD_DIR": empty}, full_window=False),
        "(b) cut, CPU default window": ours(a, files, {}, full_window=False),
    }
    words = sum(len(norm(c[3]).split()) for c in clips)
    print(f"{len(clips)} recordings ({len(sources)} sources x 2 pauses), {words} reference words; "
          f"model {os.path.basename(a.model)}, int8, {a.threads} threads, beam {a.beam}, language en\n")
    groups = [("all", lambda c: True)]
    for g in ("clips as they are", "joined 20-60 s"):
        for t in (0.4, 1.0):
            groups.append((f"{g}, {t} s pause", lambda c, g=g, t=t: c[0] == g and c[1] == t))
    print("| recordings | " + " | ".join(runs) + " |")
    print("|---|" + "---|" * len(runs))
    for label, keep in groups:
        sel = [c for c in clips if keep(c)]
        row = []
        for res in runs.values():
            m = jiwer.process_words([norm(c[3]) for c in sel], [norm(res[c[2]]["text"]) or "-" for c in sel])
            row.append(f"{100 * m.wer:.1f} %")
        print(f"| {label} | " + " | ".join(row) + " |")
    for a_name, b_name in (("(a) whole recording at the release (before)", "(b) cut after the speech: early or at the release (now)"),
                           ("(a) whole, CPU default window", "(b) cut, CPU default window")):
        report_differences(clips, files, runs[a_name], runs[b_name], b_name)


def report_differences(clips, files, a_, b_, label):
    differ = [c for c in clips if norm(a_[c[2]]["text"]) != norm(b_[c[2]]["text"])]
    print(f"\n{label}: {len(differ)} of {len(files)} recordings get other words cut than whole:\n")
    for c in differ:
        print(f"- {os.path.basename(c[2])}: whole \"{a_[c[2]]['text'].strip()}\"; cut \"{b_[c[2]]['text'].strip()}\"; "
              f"said \"{c[3]}\"")


if __name__ == "__main__":
    main()
