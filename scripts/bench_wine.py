"""Times the same clips with the Linux engine and, under wine, the installed
Windows app's engine (scripts/bench-wine.sh sets up the prefix). With
--same-backend-root it also times a Linux build of the Windows DLL's own
backend (ruy + GNU OpenMP, same CTranslate2 source and GCC 12), which splits
the gap into the backend's share and wine's. Each process transcribes every
clip twice and the second, warm, pass counts; runs alternate so load from
other jobs hits all alike. Prints Markdown."""
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
    ap.add_argument("--same-backend-root", help="engine root of a Linux ruy+openmp build (optional)")
    ap.add_argument("--wine-exe", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("clips", nargs="+")
    a = ap.parse_args()
    n = len(a.clips)
    novad = tempfile.mkdtemp()  # no speech detector on either side: only the engines differ
    lenv = dict(os.environ, WHISPERKEY_ENGINE_ROOT=a.engine_root, WHISPERKEY_VAD_DIR=novad)
    wenv = dict(os.environ, WHISPERKEY_VAD_DIR=win_path(novad))
    renv = dict(lenv, WHISPERKEY_ENGINE_ROOT=a.same_backend_root or "")
    times = {}
    durations = None
    for threads in (2, 1):
        common = ["--device", "cpu", "--threads", str(threads), "--json"]
        linux = [a.linux, "transcribe", *a.clips, *a.clips, "--model", a.model, *common]
        for _ in range(a.runs):
            lin, durations, _ = engine_seconds(linux, lenv, n)
            win, _, _ = engine_seconds(["wine", a.wine_exe, "transcribe", *[win_path(c) for c in a.clips] * 2,
                                        "--model", win_path(a.model), *common], wenv, n)
            ruy = engine_seconds(linux, renv, n)[0] if a.same_backend_root else [float("nan")] * n
            for i in range(n):
                times.setdefault(("linux", threads, i), []).append(lin[i])
                times.setdefault(("wine", threads, i), []).append(win[i])
                times.setdefault(("ruy", threads, i), []).append(ruy[i])
    for threads in (2, 1):
        print(f"\n{threads} thread{'s' if threads > 1 else ''}:\n")
        print("| clip | audio | Linux (wheel, oneDNN) | Linux (ruy + OpenMP) | wine (ruy + OpenMP) "
              "| wine / Linux wheel | ruy / wheel (backend) | wine / Linux ruy (wine + mingw) |")
        print("|---|---|---|---|---|---|---|---|")
        for i, c in enumerate(a.clips):
            l, r, w = (statistics.median(times[(k, threads, i)]) for k in ("linux", "ruy", "wine"))
            cells = [os.path.basename(c), f"{durations[i]:.1f} s", f"{l:.2f} s", f"{r:.2f} s", f"{w:.2f} s",
                     f"{w / l:.2f}x", f"{r / l:.2f}x", f"{w / r:.2f}x"]
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
