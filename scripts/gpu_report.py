"""Markdown tables from scripts/gpu-check.sh's results, for docs/benchmarks.md.
  python3 scripts/gpu_report.py GPU_OUT [CPU_OUT [SPEECH_MANIFEST]]
GPU_OUT holds the GPU run's files; CPU_OUT, when given, the same clips on the
CPU (gpu-check.sh bench and transcribe with BENCH_DEVICE / TRANSCRIBE_DEVICE=cpu);
SPEECH_MANIFEST (scripts/speech.sh's manifest.tsv) adds both WERs against
the human transcripts.
"""
import glob, json, os, re, statistics, sys


def lines(path):
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def words(text):
    return re.sub(r"[^\w\s']", " ", text.lower()).split()


def wer(ref, hyp):
    r, h = words(ref), words(hyp)
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(h)] / max(len(r), 1)


def clip(path):
    return os.path.basename(path).replace("speech-", "").replace(".wav", "")


def warm(rows, key):
    """Median warm time (ms) per clip; the first pass over the clips warms up."""
    by = {}
    for i, r in enumerate(rows):
        by.setdefault(clip(r["file"]), []).append(key(r))
    return {c: statistics.median(v[1:] if len(v) > 1 else v) * 1000 for c, v in by.items()}


def mem_mib(path):
    vals = [int(x) for x in open(path).read().split() if x.isdigit()] if os.path.exists(path) else []
    return (max(vals) - min(vals)) if vals else None


def runs(folder, device, compute_types):
    """The bench runs on device in folder, skipping empty ones: each as its model,
    compute type (one of compute_types, a regexp), rows and warm decode per clip."""
    for path in sorted(glob.glob(os.path.join(folder, f"bench-{device}-*.jsonl"))):
        rows = lines(path)
        if not rows:
            continue
        m, ct = re.match(rf"bench-{device}-(.+)-({compute_types})\.jsonl", os.path.basename(path)).groups()
        yield m, ct, rows, warm(rows, lambda r: r["timings"]["total_ns"] / 1e9)


def bench(gpu, cpu):
    peer = lines(os.path.join(gpu, "peer.jsonl"))
    print("| model | compute type | audio | whisperkey warm decode | faster-whisper (same GPU, same CTranslate2) | ratio | model load | GPU memory |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for m, ct, rows, ours in runs(gpu, "cuda", "float16|int8_float16"):
        theirs_rows = [p for p in peer if p["model"].endswith(m) and p["compute_type"] == ct]
        theirs = {}
        if theirs_rows:  # the peer prints no warm-up pass: every row counts
            by = {}
            for p in theirs_rows:
                by.setdefault(clip(p["file"]), []).append(p["seconds"])
            theirs = {c: statistics.median(v) * 1000 for c, v in by.items()}
        mem = mem_mib(os.path.join(gpu, f"mem-cuda-{m}-{ct}.txt"))
        for c in ("2s", "5s", "30s"):
            if c not in ours:
                continue
            t = theirs.get(c)
            print(f"| {m} | {ct} | {c} | {ours[c]:.0f} ms | {f'{t:.0f} ms' if t else '—'} | "
                  f"{f'{ours[c] / t:.2f}×' if t else '—'} | {rows[0]['load_seconds']:.2f} s | "
                  f"{f'{mem} MiB' if mem is not None else '—'} |")
    if cpu:
        print()
        print("| model | compute type | audio | CPU warm decode | model load |")
        print("| --- | --- | --- | ---: | ---: |")
        for m, ct, rows, ours in runs(cpu, "cpu", "int8|float32"):
            for c in ("2s", "5s", "30s"):
                if c in ours:
                    print(f"| {m} | {ct} | {c} | {ours[c]:.0f} ms | {rows[0]['load_seconds']:.2f} s |")


def pooled(refs, hyps):
    n = sum(len(words(refs[f])) for f in refs)
    return 100 * sum(wer(refs[f], hyps[f]) * len(words(refs[f])) for f in refs) / max(n, 1)


def same_words(gpu, cpu, manifest):
    refs = {}
    if manifest:
        for line in open(manifest):
            f, _, ref = line.rstrip("\n").partition("\t")
            refs[f] = ref
    print()
    print("| model | clips | same text as the CPU | pooled WER, GPU against CPU | real speech: WER GPU / CPU against the human transcripts |")
    print("| --- | ---: | ---: | ---: | --- |")
    for m in ("base", "tiny.en"):
        g = {r["file"].rsplit("/", 1)[-1]: r for r in lines(os.path.join(gpu, f"transcribe-cuda-{m}.jsonl"))}
        c = {r["file"].rsplit("/", 1)[-1]: r for r in lines(os.path.join(cpu, f"transcribe-cpu-{m}.jsonl"))}
        both = sorted(set(g) & set(c))
        if not both:
            continue
        same = sum(words(g[f]["text"]) == words(c[f]["text"]) for f in both)
        errs = sum(wer(c[f]["text"], g[f]["text"]) * len(words(c[f]["text"])) for f in both)
        n = sum(len(words(c[f]["text"])) for f in both)
        if {g[f]["device"] for f in both} != {"cuda"}:
            sys.exit(f"{m}: not every GPU row ran on cuda")
        real = {f: refs[f] for f in both if f in refs}
        human = (f"{pooled(real, {f: g[f]['text'] for f in real}):.1f} % / "
                 f"{pooled(real, {f: c[f]['text'] for f in real}):.1f} % ({len(real)} clips)") if real else "—"
        print(f"| {m} | {len(both)} | {same} | {100 * errs / max(n, 1):.1f} % | {human} |")
        for f in both:
            if words(g[f]["text"]) != words(c[f]["text"]):
                print(f"|   {f} | | GPU: {g[f]['text']!r} | CPU: {c[f]['text']!r} | |")


if __name__ == "__main__":
    gpu = sys.argv[1]
    cpu = sys.argv[2] if len(sys.argv) > 2 else None
    bench(gpu, cpu)
    if cpu:
        same_words(gpu, cpu, sys.argv[3] if len(sys.argv) > 3 else None)
