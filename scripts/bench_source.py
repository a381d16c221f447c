"""Times `whisperkey transcribe` with two CPU engines on the same clips, same
run: the engine linked to the ctranslate2 wheel's library and the one linked
to the library built from our patched source (scripts/bench-source.sh). Each
process transcribes every clip twice and the second, warm, pass counts; the
engines alternate so load from other jobs hits both alike. Prints Markdown:
the median engine time per thread count, the ratio, and whether the texts match."""
import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile


def engine_seconds(cmd, env, n):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(l) for l in out.splitlines() if l.strip().startswith("{")]
    if len(rows) != 2 * n:
        raise SystemExit(f"{cmd[0]}: {len(rows)} results, want {2 * n}")
    warm = rows[n:]
    return sum(r["timings"]["total_ns"] for r in warm) / 1e9, sum(r["duration"] for r in warm), [r["text"] for r in warm]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--wheel-root", required=True, help="engine root whose cpu/ links the wheel's library")
    ap.add_argument("--source-root", required=True, help="engine root whose cpu/ links the library built here")
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("clips", nargs="+")
    a = ap.parse_args()
    n = len(a.clips)
    novad = tempfile.mkdtemp()  # no speech detector: only the engines differ
    base = dict(os.environ, WHISPERKEY_VAD_DIR=novad)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
    print(f"{cpu}, {os.cpu_count()} cores; model {os.path.basename(a.model)}, int8, beam {a.beam}; "
          f"{n} clips, warm pass, {a.runs} alternating runs per engine and thread count\n")
    print("| threads | audio | wheel's library | built from source | source ÷ wheel | same text |")
    print("|---|---|---|---|---|---|")
    for threads in (1, 2):
        cmd = [a.binary, "transcribe", *a.clips, *a.clips, "--model", a.model, "--device", "cpu",
               "--compute-type", "int8", "--threads", str(threads), "--beam-size", str(a.beam), "--language", "en", "--json"]
        times = {"wheel": [], "source": []}
        texts, audio = {}, 0.0
        for _ in range(a.runs):
            for name, root in (("wheel", a.wheel_root), ("source", a.source_root)):
                t, audio, texts[name] = engine_seconds(cmd, dict(base, WHISPERKEY_ENGINE_ROOT=root), n)
                times[name].append(t)
        w, s = statistics.median(times["wheel"]), statistics.median(times["source"])
        same = sum(x == y for x, y in zip(texts["wheel"], texts["source"]))
        print(f"| {threads} | {audio:.1f} s | {w:.2f} s | {s:.2f} s | **{s / w:.3f}×** | {same}/{n} |")


if __name__ == "__main__":
    main()
