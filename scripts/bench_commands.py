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


def related(phrase, reference):
    """phrase shares a word's stem with reference ("minute" and "minutes",
    "pause" and "paused", "putty" and "puddy" do not count: "put" ≠ "pud"):
    a check against it says little about a false command."""
    stems = {w[:4] for w in reference.split()}
    return any(w[:4] in stems for w in phrase.split())


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
                got.append({"text": j["text"], "gaps": {s["phrase"]: s["gap"] for s in c.get("scores") or []} if c else None})
            cache[key] = got
            os.makedirs(a.cache, exist_ok=True)
            with open(cache_path + ".part", "w") as f:
                json.dump(cache, f)
            os.replace(cache_path + ".part", cache_path)
        for r, g in zip(group, cache[key]):
            results.append((r, g["text"], g["gaps"]))

    margins = [float(m) for m in a.margins.split(",")]
    ms = " / ".join(f"{m:g}" for m in margins)
    print(f"{len(rows)} recordings of at most {a.max_seconds} s with 1–5 reference words; groups of {a.group}.")
    print()
    print(f"| part | recordings checked | said: the words already the phrase | said: taken by the words or the check, margin {ms} "
          f"| not said, unrelated: checks, taken at margin {ms} | undo phrases: checks, closest gap, taken at margin {ms} "
          f"| not said but related (a word's stem shared, or part of what was said): checks, taken at margin {ms} |")
    print("|---|---|---|---|---|---|---|")
    for part in ("tune", "held-out", None):
        sel = [x for x in results if part is None or x[0]["part"] == part]
        checked = [x for x in sel if x[2] is not None]
        exact = [words(x[1]) == x[0]["phrase"] for x in checked]
        # A phrase shorter than the utterance by more than a word is not
        # scored (whisper's check): it is not taken.
        said = [x[2].get(x[0]["phrase"], float("inf")) for x in checked]
        pairs = [(x, p, g) for x in checked for p, g in x[2].items() if p != x[0]["phrase"]]
        undo = [t for t in pairs if t[1] in UNDO]
        near = [t for t in pairs if t[1] not in UNDO and (related(t[1], t[0][0]["phrase"]) or inside(t[1], t[0][0]["phrase"]))]
        other = [t for t in pairs if t[1] not in UNDO and t not in near]
        pct = lambda n, d: f"{n}/{d} ({100 * n / max(d, 1):.0f} %)"
        count = lambda ts: " / ".join(str(sum(g <= m for _, _, g in ts)) for m in margins)
        print(f"| {part or 'both'} | {len(checked)} of {len(sel)} | {pct(sum(exact), len(checked))} | " +
              " / ".join(pct(sum(e or g <= m for e, g in zip(exact, said)), len(said)) for m in margins) +
              f" | {len(other)}: {count(other)} | {len(undo)}: {min((g for _, _, g in undo), default=float('inf')):.1f}, {count(undo)} | {len(near)}: {count(near)} |")
        if part is None:
            table = lambda ts: [print(f"| {x[0]['file']} | {x[0]['reference']} | {x[1]} | {p} | {g:.2f} |")
                                for x, p, g in sorted(ts, key=lambda t: t[2])[:8]]
            print()
            for title, ts in (("Unrelated phrases closest to being taken (what the margin must stay under)", other),
                              ("The undo phrases' closest", undo), ("Related phrases closest", near)):
                print(f"{title}:")
                print()
                print("| recording | reference | free decode | phrase checked | gap |")
                print("|---|---|---|---|---|")
                table(ts)
                print()
            missed = sorted(((g, x) for x, g, e in zip(checked, said, exact) if not e), key=lambda t: -t[0])[:8]
            print("Said, not written as the phrase, and farthest from it:")
            print()
            print("| recording | reference | free decode | gap |")
            print("|---|---|---|---|")
            for g, x in missed:
                print(f"| {x[0]['file']} | {x[0]['reference']} | {x[1]} | {g:.2f} |")
            print()


if __name__ == "__main__":
    main()
