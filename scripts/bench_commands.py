"""Spoken commands checked by the model (issue #51 item 2): how often a short
utterance is taken for a command phrase when it is that phrase, and how often
when it is not, on real speech.

The set is every recording of scripts/speech-set.sh of at most --max-seconds
whose reference has 1–5 words (config.MaxCommandWords): Asterisk's prompts,
MFA's short phrases, the card-game commands, single words. No registry
package ships real recordings of "scratch that", so each recording stands in
for a command of its own: it is checked against its own reference (said: it
should be taken) and against other recordings' references and the app's undo
phrases (not said: it must not be). Recordings are checked in groups, each
against the group's references, with `whisperkey transcribe --commands`, the
same check the app makes on a dictation; the gap of each phrase (the free
decode's log-probability minus the phrase's, nats) is what the margin is
chosen on. Prints Markdown.
"""
import argparse, csv, hashlib, json, os, re, subprocess, sys, wave

UNDO = ["scratch that", "undo that"]  # config.DefaultUndoPhrases


def words(text):
    """The reference as a command phrase: lower case, the words alone."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower().replace("’", "'")))


def inside(phrase, reference):
    """phrase's words stand together in a longer reference ("hello" in "oh hello")."""
    p, r = phrase.split(), reference.split()
    return len(p) < len(r) and any(r[i:i + len(p)] == p for i in range(len(r) - len(p) + 1))


def seconds(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--set", required=True, help="the folder scripts/speech-set.sh fills")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-seconds", type=float, default=3.5)
    ap.add_argument("--group", type=int, default=8, help="recordings checked against each other's references")
    ap.add_argument("--cache", required=True, help="folder for the cached scores")
    ap.add_argument("--margins", default="0.5,1,1.5,2,2.5,3,4")
    a = ap.parse_args()

    rows = []
    with open(os.path.join(a.set, "manifest.tsv")) as f:
        cols = ("file", "reference", "kind", "part", "source")  # no header line
        for r in csv.DictReader(f, fieldnames=cols, delimiter="\t", quoting=csv.QUOTE_NONE):
            path = os.path.join(a.set, r["file"])
            w = words(r["reference"])
            if 1 <= len(w.split()) <= 5 and seconds(path) <= a.max_seconds:
                rows.append({**r, "path": path, "phrase": w})
    rows.sort(key=lambda r: r["file"])
    binary = hashlib.sha256(open(a.binary, "rb").read()).hexdigest()[:16]
    cache_path = os.path.join(a.cache, f"{binary}-{hashlib.sha256(a.model.encode()).hexdigest()[:8]}.json")
    cache = json.load(open(cache_path)) if os.path.exists(cache_path) else {}

    results = []  # (row, text, {phrase: gap} or None)
    for i in range(0, len(rows), a.group):
        group = rows[i:i + a.group]
        phrases = sorted({r["phrase"] for r in group} | set(UNDO))
        key = hashlib.sha256(json.dumps([[r["file"] for r in group], phrases]).encode()).hexdigest()
        if key not in cache:
            cmd = [a.binary, "transcribe", "--json", "--language", "en", "--model", a.model, "--compute-type", "int8",
                   "--threads", str(a.threads), "--commands", ",".join(phrases), *[r["path"] for r in group]]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                sys.exit(f"transcribe failed: {out.stderr[-2000:]}")
            got = []
            for line in out.stdout.splitlines():
                j = json.loads(line)
                c = j.get("command")
                got.append({"text": j["text"], "gaps": {s["phrase"]: s["gap"] for s in c["scores"]} if c else None})
            cache[key] = got
            os.makedirs(a.cache, exist_ok=True)
            with open(cache_path + ".part", "w") as f:
                json.dump(cache, f)
            os.replace(cache_path + ".part", cache_path)
        for r, g in zip(group, cache[key]):
            results.append((r, g["text"], g["gaps"]))

    margins = [float(m) for m in a.margins.split(",")]
    print(f"{len(rows)} recordings of at most {a.max_seconds} s with 1–5 reference words; groups of {a.group}.")
    print()
    print("| part | recordings | checked | said: free decode already the phrase | said: taken at margin " +
          " / ".join(f"{m:g}" for m in margins) + " | not said: checks | not said: taken at margin " +
          " / ".join(f"{m:g}" for m in margins) + " | part of what was said: checks, taken at margin " +
          " / ".join(f"{m:g}" for m in margins) + " | undo phrases taken at margin " + " / ".join(f"{m:g}" for m in margins) + " |")
    print("|---|---|---|---|---|---|---|---|---|")
    worst = []
    for part in ("tune", "held-out", None):
        sel = [x for x in results if part is None or x[0]["part"] == part]
        checked = [x for x in sel if x[2] is not None]
        said = [x[2][x[0]["phrase"]] for x in checked]
        exact = sum(words(x[1]) == x[0]["phrase"] for x in checked)
        other = [(x, p, g) for x in checked for p, g in x[2].items()
                 if p != x[0]["phrase"] and p not in UNDO and not inside(p, x[0]["phrase"])]
        part_of = [(x, p, g) for x in checked for p, g in x[2].items() if inside(p, x[0]["phrase"])]
        undo = [(x, p, g) for x in checked for p, g in x[2].items() if p in UNDO and p != x[0]["phrase"]]
        pct = lambda n, d: f"{n}/{d} ({100 * n / max(d, 1):.0f} %)"
        print(f"| {part or 'both'} | {len(sel)} | {len(checked)} | {pct(exact, len(checked))} | " +
              " / ".join(pct(sum(g <= m for g in said), len(said)) for m in margins) + f" | {len(other)} | " +
              " / ".join(str(sum(g <= m for _, _, g in other)) for m in margins) + f" | {len(part_of)}: " +
              " / ".join(str(sum(g <= m for _, _, g in part_of)) for m in margins) + " | " +
              " / ".join(str(sum(g <= m for _, _, g in undo)) for m in margins) + " |")
        if part is None:
            worst = sorted(other + undo, key=lambda t: t[2])[:12]
            parts = sorted(part_of, key=lambda t: t[2])[:8]
            missed = sorted(((g, x) for x, g in zip(checked, said) if g > max(margins)), key=lambda t: -t[0])[:8]
    print()
    print("Closest phrases not said (the false command the margin must stay under):")
    print()
    print("| recording | reference | free decode | phrase checked | gap |")
    print("|---|---|---|---|---|")
    for x, p, g in worst:
        print(f"| {x[0]['file']} | {x[0]['reference']} | {x[1]} | {p} | {g:.2f} |")
    print()
    print("A phrase that is part of what was said (\"hello\" in \"oh, hello\"), closest first:")
    print()
    print("| recording | reference | free decode | phrase checked | gap |")
    print("|---|---|---|---|---|")
    for x, p, g in parts:
        print(f"| {x[0]['file']} | {x[0]['reference']} | {x[1]} | {p} | {g:.2f} |")
    print()
    print("Said but far from taken (free decode against the phrase):")
    print()
    print("| recording | reference | free decode | gap |")
    print("|---|---|---|---|")
    for g, x in missed:
        print(f"| {x[0]['file']} | {x[0]['reference']} | {x[1]} | {g:.2f} |")


if __name__ == "__main__":
    main()
