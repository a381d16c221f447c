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
from bench_joined import groups, ours, recordings  # noqa: E402

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
    tmp = tempfile.mkdtemp(prefix="bench-held-")
    sources, clips = recordings(a, LONG, tmp, clips=not a.only_long, joined=not a.only_clips)  # (group, tail, path, ref)
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
    print("| recordings | " + " | ".join(runs) + " | tokens forced at the release (b) |")
    print("|---|" + "---|" * (len(runs) + 1))
    for label, keep in groups():
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
    return ours(a, files, {}, full_window=False, flags=["--as-held"])


if __name__ == "__main__":
    main()
