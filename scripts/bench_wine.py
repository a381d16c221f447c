"""Times the same clips with the Linux engine and, under wine, the installed
Windows app's engine (scripts/bench-wine.sh sets up the prefix). Each process
transcribes every clip twice and the second, warm, pass counts; runs alternate
Linux and wine so load from other jobs hits both alike. Prints Markdown."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def win_path(p):
    return "Z:" + os.path.abspath(p).replace("/", "\\")


def engine_seconds(cmd, env, n):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(l) for l in out.splitlines() if l.strip().startswith("{")]
    if len(rows) != 2 * n:
        raise SystemExit(f"{cmd[0]}: {len(rows)} results, want {2 * n}")
    warm = rows[n:]
    return [r["timings"]["total_ns"] / 1e9 for r in warm], [r["duration"] for r in warm], [r["text"] for r in warm]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--linux", required=True)
    ap.add_argument("--engine-root", required=True)
    ap.add_argument("--wine-exe", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("clips", nargs="+")
    a = ap.parse_args()
    n = len(a.clips)
    novad = tempfile.mkdtemp()  # no speech detector on either side: only the engines differ
    lenv = dict(os.environ, WHISPERKEY_ENGINE_ROOT=a.engine_root, WHISPERKEY_VAD_DIR=novad)
    wenv = dict(os.environ, WHISPERKEY_VAD_DIR=win_path(novad))
    times = {}
    durations = None
    for threads in (2, 1):
        common = ["--device", "cpu", "--threads", str(threads), "--json"]
        for _ in range(a.runs):
            lin, durations, _ = engine_seconds([a.linux, "transcribe", *a.clips, *a.clips, "--model", a.model, *common], lenv, n)
            win, _, _ = engine_seconds(["wine", a.wine_exe, "transcribe", *[win_path(c) for c in a.clips] * 2,
                                        "--model", win_path(a.model), *common], wenv, n)
            for i in range(n):
                times.setdefault(("linux", threads, i), []).append(lin[i])
                times.setdefault(("wine", threads, i), []).append(win[i])
    print("| clip | audio | Linux, 2 threads | wine, 2 threads | wine / Linux | Linux, 1 thread | wine, 1 thread | wine / Linux |")
    print("|---|---|---|---|---|---|---|---|")
    for i, c in enumerate(a.clips):
        cells = [os.path.basename(c), f"{durations[i]:.1f} s"]
        for threads in (2, 1):
            l = statistics.median(times[("linux", threads, i)])
            w = statistics.median(times[("wine", threads, i)])
            cells += [f"{l:.2f} s", f"{w:.2f} s", f"{w / l:.2f}x"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
