"""Accuracy of a release that forces what the hold already decoded (issue #49 item 5).

The real-speech set (scripts/speech-set.sh) as it is, and long recordings of
20-60 s made by joining one source's consecutive clips with 0.3 s of room
noise, each followed by 0.4 s and by 1 s of room noise (the pause before the
key is let go). Decoded (a) whole at the release, as with
decoding.early_prefix off; (b) as a hold over it would be (transcribe
--as-held): a transcription at each pause, each forcing what the two before
it agree on, and the release's text the last pause's or, when speech came
after it, the whole recording's forcing the same way; (c) faster-whisper
1.2.1 (no VAD) on the same model, in the same run. Prints Markdown: pooled
WER per group, and every recording whose words (b) changed against (a).
"""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench_short import faster_whisper, norm, speech_args  # noqa: E402
from bench_early import noise, ours, sox  # noqa: E402

# One source's consecutive clips, joined into 20-60 s recordings.
LONG = {
    "librivox_joined": ["small_librivox_0870", "small_librivox_0880", "small_librivox_0890", "small_librivox_0920",
                        "small_librivox_0930"],
    "callhome_joined": ["small_callhome_%02d" % i for i in range(13)],
    "callhome_long_joined": ["small_callhome_10s", "small_callhome_25s"],
    "mfa_speaker_joined": ["mfa_mfa_um", "mfa_mfa_uh", "mfa_mfa_uhuh", "mfa_mfa_uhum", "mfa_mfa_long", "mfa_mfa_crossword"],
    "mfa_cold_joined": ["mfa_cold_corpus", "mfa_cold_corpus3"],
}


def main():
    ap = speech_args()
    ap.add_argument("--only-long", action="store_true", help="the joined recordings only")
    ap.add_argument("--only-clips", action="store_true", help="the clips as they are only")
    a = ap.parse_args()
    a.runs = 0
    import jiwer
    refs = {}
    for line in open(os.path.join(a.speech, "manifest.tsv")):
        name, ref = line.rstrip("\n").split("\t")[:2]
        refs[name[:-4]] = ref
    tmp = tempfile.mkdtemp(prefix="bench-held-")
    gap = os.path.join(tmp, "gap.wav")
    noise(gap, 0.3)
    sources = {} if a.only_long else {n: (os.path.join(a.speech, n + ".wav"), r) for n, r in refs.items()}
    for name, parts in ({} if a.only_clips else LONG).items():
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
    whole, held = "(a) whole at the release", "(b) the hold's agreed words forced (now)"
    runs = {
        whole: ours(a, files, {}, full_window=False),
        held: ours_held(a, files),
        "(c) faster-whisper 1.2.1 (no VAD)": faster_whisper(a, files),
    }
    words = sum(len(norm(c[3]).split()) for c in clips)
    print(f"{len(clips)} recordings ({len(sources)} sources x 2 pauses), {words} reference words; "
          f"model {os.path.basename(a.model)}, int8, {a.threads} threads, beam {a.beam}, language en, CPU default window\n")
    groups = [("all", lambda c: True)]
    for g in ("clips as they are", "joined 20-60 s"):
        for t in (0.4, 1.0):
            groups.append((f"{g}, {t} s pause", lambda c, g=g, t=t: c[0] == g and c[1] == t))
    print("| recordings | " + " | ".join(runs) + " | tokens forced at the release (b) |")
    print("|---|" + "---|" * (len(runs) + 1))
    for label, keep in groups:
        sel = [c for c in clips if keep(c)]
        if not sel:
            continue
        row = []
        for res in runs.values():
            m = jiwer.process_words([norm(c[3]) for c in sel], [norm(res[c[2]]["text"]) or "-" for c in sel])
            errors = m.substitutions + m.deletions + m.insertions
            row.append(f"{100 * m.wer:.1f} % ({errors} / {m.hits + m.substitutions + m.deletions})")
        forced = sum(runs[held][c[2]].get("forced_tokens", 0) for c in sel)
        print(f"| {label} | " + " | ".join(row) + f" | {forced} |")
    differ = [c for c in clips if norm(runs[whole][c[2]]["text"]) != norm(runs[held][c[2]]["text"])]
    print(f"\n{len(differ)} of {len(files)} recordings get other words with the hold's words forced:\n")
    for c in differ:
        m_a = jiwer.process_words(norm(c[3]), norm(runs[whole][c[2]]["text"]) or "-")
        m_b = jiwer.process_words(norm(c[3]), norm(runs[held][c[2]]["text"]) or "-")
        print(f"- {os.path.basename(c[2])}: errors whole {m_a.substitutions + m_a.deletions + m_a.insertions}, "
              f"forced {m_b.substitutions + m_b.deletions + m_b.insertions} (deletions {m_a.deletions} / {m_b.deletions}); "
              f"whole \"{runs[whole][c[2]]['text'].strip()}\"; forced \"{runs[held][c[2]]['text'].strip()}\"")


def ours_held(a, files):
    import json, subprocess
    cmd = [a.binary, "transcribe", "--json", "--as-held", "--language", "en", "--model", a.model, "--compute-type", "int8",
           "--threads", str(a.threads), "--beam-size", str(a.beam)]
    out = subprocess.run(cmd + files, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"whisperkey transcribe --as-held failed: {out.stderr[-2000:]}")
    return {j["file"]: j for j in map(json.loads, out.stdout.splitlines())}


if __name__ == "__main__":
    main()
