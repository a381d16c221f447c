"""Load on `whisperkey serve`: requests per second and p50/p95 latency at
concurrency 1, 2 and 4 for ~5 s clips, over loopback, through the real
binary. Reference: faster-whisper transcribing the same clip in-process, one
after another (no HTTP, no queue), with the same model, threads and beam.
Prints Markdown for docs/benchmarks.md.
"""
import argparse, json, os, platform, socket, statistics, subprocess, sys, tempfile, threading, time, urllib.request, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import speech, FW  # noqa: E402  (the same espeak-ng clips as make bench)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def form(wav_bytes):
    """A multipart body with file, model, language and response_format."""
    b = uuid.uuid4().hex
    parts = []
    for k, v in (("model", "whisper-1"), ("language", "en"), ("response_format", "json")):
        parts.append(f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    parts.append(f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="clip.wav"\r\n'
                 f'Content-Type: audio/wav\r\n\r\n'.encode() + wav_bytes + b"\r\n")
    parts.append(f"--{b}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={b}"


def post(url, body, ctype):
    req = urllib.request.Request(url + "/v1/audio/transcriptions", data=body, headers={"Content-Type": ctype})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=300) as r:
        text = json.loads(r.read())["text"]
    return time.perf_counter() - start, text


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def run_level(url, body, ctype, conc, total):
    lat, texts, lock = [], [], threading.Lock()
    todo = list(range(total))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                todo.pop()
            d, t = post(url, body, ctype)
            with lock:
                lat.append(d)
                texts.append(t)

    start = time.perf_counter()
    ts = [threading.Thread(target=worker) for _ in range(conc)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return total / (time.perf_counter() - start), lat, texts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--requests", type=int, default=12, help="requests per concurrency level")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    wav = os.path.join(tmp, "clip5.wav")
    dur = speech(wav, 5)
    body, ctype = form(open(wav, "rb").read())

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    srv = subprocess.Popen([a.binary, "serve", "--listen", f"127.0.0.1:{port}", "--model", a.model, "--device", "cpu",
                            "--compute-type", "int8", "--threads", str(a.threads), "--beam-size", str(a.beam),
                            "--queue", "16"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url + "/v1/models", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        post(url, body, ctype)  # warm-up
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
        print(f"**whisperkey serve** — {cpu}, {os.cpu_count()} cores; model {os.path.basename(a.model)}, int8, "
              f"{a.threads} threads, beam {a.beam}; {dur:.1f} s clip, {a.requests} requests per level over loopback\n")
        print("| concurrency | requests/s | p50 latency | p95 latency | audio s per wall s |")
        print("|---|---|---|---|---|")
        for conc in (1, 2, 4):
            rps, lat, texts = run_level(url, body, ctype, conc, a.requests)
            if len(set(texts)) != 1:
                print(f"<!-- texts differed at concurrency {conc}: {set(texts)} -->")
            print(f"| {conc} | {rps:.2f} | {pct(lat, 50):.2f} s | {pct(lat, 95):.2f} s | {rps * dur:.1f} |")
    finally:
        srv.terminate()
        srv.wait(timeout=60)

    # faster-whisper, in-process and sequential, on the same clip.
    fw = os.path.join(tmp, "fw.py")
    open(fw, "w").write(FW)
    decodes = []
    for _ in range(min(a.requests, 5)):
        out = subprocess.run([sys.executable, fw, a.model, wav, str(a.threads), str(a.beam)], check=True,
                             capture_output=True).stdout
        decodes.append(json.loads(out)["decode"])
    m = statistics.median(decodes)
    print(f"| faster-whisper 1.2.1, in-process, one at a time | {1 / m:.2f} | {m:.2f} s (decode only) | — | {dur / m:.1f} |")


if __name__ == "__main__":
    main()
