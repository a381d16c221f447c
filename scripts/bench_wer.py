"""Pooled WER on the real-speech set (scripts/speech.sh), every decoding in
one run: whisperkey's full window (speech gate + 30 s windows), its short
window (the CPU default), each also with an unrelated 20-term vocabulary,
and faster-whisper 1.2.1 (no VAD), on the same CTranslate2 model, int8,
threads and beam. Pooled WER
is all word errors over all reference words (jiwer over the whole list), so
a long clip weighs as much as its words. Prints Markdown.
"""
import json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(__file__))
from bench_short import faster_whisper, norm, speech_args  # noqa: E402

# The vocabulary TestVocabularyKeepsWER uses: said in none of the clips.
VOCABULARY = ("Kubernetes, ComfyUI, Siobhan, Przybylski, PostgreSQL, Grafana, Terraform, Okonkwo, Aoife, "
              "Nguyen, CTranslate2, WhisperKey, Figma, Jira, Zendesk, Kafka, Svelte, Tailscale, Reykjavik, Ljubljana")


def ours(a, files, *flags):
    cmd = [a.binary, "transcribe", "--json", "--language", "en", "--model", a.model, "--compute-type", "int8",
           "--threads", str(a.threads), "--beam-size", str(a.beam), *flags]
    out = subprocess.run(cmd + files, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"whisperkey transcribe {' '.join(flags)} failed: {out.stderr[-2000:]}")
    return {j["file"]: j for j in map(json.loads, out.stdout.splitlines())}


def main():
    ap = speech_args()
    ap.add_argument("--json", help="also write every decoding's text here")
    a = ap.parse_args()
    a.runs = 0  # faster_whisper(): one decode per clip
    import jiwer
    clips = []
    for line in open(os.path.join(a.speech, "manifest.tsv")):
        name, ref = line.rstrip("\n").split("\t")
        clips.append((os.path.join(a.speech, name), ref))
    files = [c[0] for c in clips]
    runs = {
        "whisperkey full window (`--full-window`, the GPU default)": ours(a, files, "--full-window"),
        "whisperkey short window (`--short-window`, the CPU default)": ours(a, files, "--short-window"),
        "whisperkey full window + unrelated 20-term vocabulary": ours(a, files, "--full-window", "--vocabulary", VOCABULARY),
        "whisperkey short window + unrelated 20-term vocabulary": ours(a, files, "--short-window", "--vocabulary", VOCABULARY),
        "faster-whisper 1.2.1 (no VAD)": faster_whisper(a, files),
    }
    refs = [norm(r) for _, r in clips]
    words = sum(len(r.split()) for r in refs)
    print(f"{len(clips)} clips, {words} reference words; model {os.path.basename(a.model)}, int8, "
          f"{a.threads} threads, beam {a.beam}, language en\n")
    print("| decoding | pooled WER | errors | clips that differ from the full window | median decode |")
    print("|---|---|---|---|---|")
    base = next(iter(runs.values()))  # the full window: faster-whisper's decoding
    for label, res in runs.items():
        hyps = [norm(res[f]["text"]) or "-" for f in files]
        m = jiwer.process_words(refs, hyps)
        errs = m.substitutions + m.deletions + m.insertions
        differ = sum(norm(res[f]["text"]) != norm(base[f]["text"]) for f in files)
        times = sorted(res[f]["timings"]["total_ns"] / 1e6 for f in files if "timings" in res[f])
        med = f"{times[len(times) // 2]:.0f} ms" if times else "–"
        print(f"| {label} | {100 * m.wer:.1f} % | {errs} | {differ} | {med} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({label: {os.path.basename(k): v["text"] for k, v in res.items()} for label, res in runs.items()},
                      f, indent=1)


if __name__ == "__main__":
    main()
