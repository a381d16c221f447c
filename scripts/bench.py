"""Times `whisperkey transcribe` against faster-whisper on identical inputs.

Both load the same CTranslate2 model directory, decode the same WAV with the
same compute type, thread count and beam size, and run alternately so machine
noise hits both alike. Reported: median wall time of the whole command (start,
model load, decode), median decode time alone, real-time factor, peak RSS.
"""
import argparse, json, os, platform, statistics, subprocess, sys, tempfile, time, wave

SENTENCES = [
    "Remember to buy milk, bread and eggs on the way home.",
    "Please call me back when you get this message.",
    "The coffee machine on the second floor is broken again.",
    "I think we should hire two more engineers for the mobile team.",
    "Our new website will launch next month with a fresh design.",
    "The meeting has been moved to Thursday afternoon at three o'clock.",
]

FW = r"""
import sys, time, json
t0 = time.perf_counter()
from faster_whisper import WhisperModel
m = WhisperModel(sys.argv[1], device="cpu", compute_type="int8", cpu_threads=int(sys.argv[3]))
t1 = time.perf_counter()
segs, info = m.transcribe(sys.argv[2], language="en", beam_size=int(sys.argv[4]))
text = "".join(s.text for s in segs).strip()
t2 = time.perf_counter()
print(json.dumps({"text": text, "decode": t2 - t1}))
"""


def speech(path, seconds):
    """espeak-ng sentences, 16 kHz mono, at least `seconds` long."""
    tmp = tempfile.mkdtemp()
    parts, total, i = [], 0.0, 0
    while total < seconds or not parts:
        p = os.path.join(tmp, f"{i}.wav")
        subprocess.run(["espeak-ng", "-w", p, SENTENCES[i % len(SENTENCES)]], check=True)
        with wave.open(p) as w:
            total += w.getnframes() / w.getframerate() + 0.4
        parts.append(p)
        i += 1
        if seconds <= 5 and total >= 4:
            break
    subprocess.run(["sox"] + parts + ["-r", "16000", "-c", "1", "-b", "16", path], check=True)
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def timed(cmd):
    """Wall time, stdout and peak RSS (largest process in the tree, MiB)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{' '.join(cmd[:2])} failed: {err.decode()[-2000:]}")
    return wall, out, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--label", default="whisperkey")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    fw_script = os.path.join(tmp, "fw.py")
    open(fw_script, "w").write(FW)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
    print(f"**{a.label}** — {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
          f"model {os.path.basename(a.model)}, int8, {a.threads} threads, beam {a.beam}, "
          f"{a.runs} alternating runs each\n")
    print("| audio | whisperkey wall | faster-whisper wall | ratio | whisperkey decode | faster-whisper decode | decode ratio | RTF (ours) | peak RSS ours / fw | WER ours / fw |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for seconds in (5, 60):
        wav = os.path.join(tmp, f"a{seconds}.wav")
        dur = speech(wav, seconds)
        ref = " ".join(SENTENCES * 20)
        ours, theirs, od, td, orss, trss = [], [], [], [], 0, 0
        otext = ttext = ""
        for _ in range(a.runs):
            w, out, rss = timed([a.binary, "transcribe", wav, "--model", a.model, "--compute-type", "int8",
                                 "--threads", str(a.threads), "--beam-size", str(a.beam), "--language", "en", "--json"])
            j = json.loads(out)
            ours.append(w); od.append(j["timings"]["total_ns"] / 1e9); orss = max(orss, rss); otext = j["text"]
            w, out, rss = timed([sys.executable, fw_script, a.model, wav, str(a.threads), str(a.beam)])
            j = json.loads(out)
            theirs.append(w); td.append(j["decode"]); trss = max(trss, rss); ttext = j["text"]
        import jiwer
        def wer(h):
            norm = lambda s: " ".join("".join(c.lower() if c.isalnum() or c == " " else " " for c in s).split())
            n = len(norm(h).split())
            words = norm(ref).split()
            return jiwer.wer(" ".join(words[:max(n, 1)]), norm(h))
        mo, mt, mod, mtd = (statistics.median(x) for x in (ours, theirs, od, td))
        print(f"| {dur:.1f} s | {mo:.2f} s | {mt:.2f} s | **{mo/mt:.2f}×** | {mod:.2f} s | {mtd:.2f} s | **{mod/mtd:.2f}×** | "
              f"{mod/dur:.3f} | {orss:.0f} / {trss:.0f} MiB | {wer(otext):.3f} / {wer(ttext):.3f} |")


if __name__ == "__main__":
    main()
