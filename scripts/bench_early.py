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
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench_short import faster_whisper, norm, speech_args  # noqa: E402
from bench_joined import groups, ours, recordings  # noqa: E402

# One speaker's consecutive clips, joined into 20-60 s recordings.
LONG = {
    "librivox_joined": ["librivox_0870", "librivox_0880", "librivox_0890", "librivox_0920", "librivox_0930"],
    "callhome_joined": ["callhome_%02d" % i for i in range(13)],
    "callhome_long_joined": ["callhome_10s", "callhome_25s"],
}


def main():
    ap = speech_args()
    a = ap.parse_args()
    a.runs = 0
    import jiwer
    tmp = tempfile.mkdtemp(prefix="bench-early-")
    sources, clips = recordings(a, LONG, tmp)  # (group, tail, path, ref)
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
    print("| recordings | " + " | ".join(runs) + " |")
    print("|---|" + "---|" * len(runs))
    for label, keep in groups():
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
