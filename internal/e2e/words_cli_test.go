package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestVocabularySpellsName: espeak-ng says names the base model has never
// seen; without help it writes them as it hears them ("Shivon", "FIFA"),
// with --vocabulary as the user spells them.
func TestVocabularySpellsName(t *testing.T) {
	model := testenv.Model(t, "base")
	for _, name := range []string{"Siobhan", "Aoife"} {
		t.Run(name, func(t *testing.T) {
			wav := speechWAV(t, "Please send the report to "+name+" before lunch.")
			plain := whisperkey(t, "transcribe", wav, "--model", model, "--language", "en")
			helped := whisperkey(t, "transcribe", wav, "--model", model, "--language", "en", "--vocabulary", "Kubernetes, "+name+", ComfyUI")
			if plain.code != 0 || helped.code != 0 {
				t.Fatalf("exit %d / %d: %s %s", plain.code, helped.code, plain.stderr, helped.stderr)
			}
			t.Logf("without: %q; with --vocabulary: %q", strings.TrimSpace(plain.stdout), strings.TrimSpace(helped.stdout))
			if strings.Contains(plain.stdout, name) {
				t.Errorf("base spelled %s right without help (%q): the sentence no longer shows what the vocabulary does", name, plain.stdout)
			}
			if !strings.Contains(helped.stdout, name) {
				t.Errorf("with --vocabulary the text lacks %s: %q", name, helped.stdout)
			}
			if wer := whisper.WordErrorRate("Please send the report to "+name+" before lunch.", helped.stdout); wer > 0.2 {
				t.Errorf("with --vocabulary WER %.2f: %q", wer, helped.stdout)
			}
		})
	}
}

// TestTranscribeShapesText: spoken punctuation and replacements from flags and
// from a config file, on real recognition.
func TestTranscribeShapesText(t *testing.T) {
	model := testenv.Model(t, "base")
	wav := speechWAV(t, "first line new line second line")
	r := whisperkey(t, "transcribe", wav, "--model", model, "--language", "en", "--spoken-punctuation")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Whisper writes "first" or "1st" depending on the CPU's int8 kernels.
	spelled := strings.NewReplacer("1st", "first", "2nd", "second")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 2 || spelled.Replace(whisper.Normalize(lines[0])) != "first line" || spelled.Replace(whisper.Normalize(lines[1])) != "second line" {
		t.Fatalf("spoken punctuation: got %q, want the two lines \"first line\" and \"second line\"", r.stdout)
	}

	// Replacements run in order, each on the result of the one before, and
	// one may write a line break; the same settings come from a config file.
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(`spoken_punctuation: true
replacements:
  - {from: "1st line", to: "first line"}
  - {from: "2nd line", to: "second line"}
  - {from: "second line", to: "line two"}
  - {from: "line two", to: "LINE 2"}
  - {from: "first line", to: "Start:\n  first"}
output:
  case: lower
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = whisperkey(t, "transcribe", wav, "--model", model, "--language", "en", "--config", cfg)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := strings.TrimRight(strings.TrimSuffix(r.stdout, "\n"), ".")
	if got != "Start:\n  first\nLINE 2" {
		t.Fatalf("replacements in order: got %q, want %q", r.stdout, "Start:\n  first\nLINE 2")
	}
	// Flags override the file; --replace adds to its list.
	r = whisperkey(t, "transcribe", wav, "--model", model, "--language", "en", "--config", cfg,
		"--spoken-punctuation=false", "--replace", "LINE 2=the end")
	if out := whisper.Normalize(r.stdout); r.code != 0 || !strings.Contains(out, "new line") || !strings.HasSuffix(out, "the end") {
		t.Fatalf("--spoken-punctuation=false and --replace over the file: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	t.Logf("flags over the file: %q", r.stdout)
}

// audioVariants writes wav as FLAC and Ogg Vorbis (sox), MP3 at 44.1 kHz (read
// by go-mp3) and at espeak's 22050 Hz (MPEG-2, read through ffmpeg) and Opus
// (ffmpeg only).
func audioVariants(t *testing.T, wav string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		testenv.Require(t, "ffmpeg", "make deps (apt-get install ffmpeg)")
	}
	dir := t.TempDir()
	files := map[string]string{"WAV": wav}
	conv := []struct{ name, file, tool string }{
		{"FLAC", "s.flac", "sox"}, {"OGG", "s.ogg", "sox"}, {"MP3", "s.mp3", "ffmpeg"},
		{"MP3 22050 Hz (ffmpeg)", "s22k.mp3", "ffmpeg"}, {"Opus (ffmpeg)", "s.opus", "ffmpeg"},
	}
	for _, c := range conv {
		out := filepath.Join(dir, c.file)
		args := []string{wav, out}
		if c.tool == "ffmpeg" {
			args = []string{"-nostdin", "-loglevel", "error", "-i", wav, out}
		}
		switch c.name { // 128 kb/s: ffmpeg's default for 22050 Hz mono is a muddy 32 kb/s
		case "MP3":
			args = []string{"-nostdin", "-loglevel", "error", "-i", wav, "-ar", "44100", "-b:a", "128k", out}
		case "MP3 22050 Hz (ffmpeg)":
			args = []string{"-nostdin", "-loglevel", "error", "-i", wav, "-b:a", "128k", out}
		}
		if b, err := exec.Command(c.tool, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", c.tool, err, b)
		}
		files[c.name] = out
	}
	return files
}

// TestTranscribeAudioFormats: the same speech as WAV, FLAC, MP3 and Ogg (and
// Opus through ffmpeg) gives the same text.
func TestTranscribeAudioFormats(t *testing.T) {
	model := testenv.Model(t, "base")
	const said = "Remember to buy milk, bread and eggs on the way home."
	files := audioVariants(t, speechWAV(t, said))
	want := ""
	for _, name := range []string{"WAV", "FLAC", "OGG", "MP3", "MP3 22050 Hz (ffmpeg)", "Opus (ffmpeg)"} {
		r := whisperkey(t, "transcribe", files[name], "--model", model, "--language", "en")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		t.Logf("%-14s %q", name, strings.TrimSpace(r.stdout))
		if name == "WAV" {
			want = r.stdout
			if wer := whisper.WordErrorRate(said, want); wer > 0.15 {
				t.Fatalf("WAV: WER %.2f: %q", wer, want)
			}
			continue
		}
		if whisper.Normalize(r.stdout) != whisper.Normalize(want) {
			t.Errorf("%s: %q, WAV gave %q", name, r.stdout, want)
		}
	}
}

// TestTranscribeBadAudio: a damaged file of each format fails with one line
// and exit code 2.
func TestTranscribeBadAudio(t *testing.T) {
	model := testenv.Model(t, "base")
	files := audioVariants(t, speechWAV(t, "hello there"))
	dir := t.TempDir()
	for _, name := range []string{"WAV", "FLAC", "OGG", "MP3", "Opus (ffmpeg)"} {
		t.Run(name, func(t *testing.T) {
			good, err := os.ReadFile(files[name])
			if err != nil {
				t.Fatal(err)
			}
			// The format's own header, then noise where the audio should be.
			bad := append([]byte{}, good[:min(len(good), 48)]...)
			for i := 0; len(bad) < 4096; i++ {
				bad = append(bad, byte(i*7919>>3))
			}
			if name == "WAV" {
				bad = append([]byte{}, good[:12]...) // RIFF/WAVE, then no fmt chunk
				bad = append(bad, []byte("\x13\x37 this is not audio data at all")...)
			}
			if name == "FLAC" || name == "MP3" {
				bad = append([]byte{}, good[:4]...) // the magic alone: no stream info, no frames
				bad = append(bad, []byte("\x13\x37 this is not audio data at all")...)
			}
			path := filepath.Join(dir, "bad-"+filepath.Base(files[name]))
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			r := whisperkey(t, "transcribe", path, "--model", model)
			msg := strings.TrimSpace(r.stderr)
			if r.code != 2 || msg == "" || strings.Contains(msg, "\n") || !strings.Contains(msg, path) || strings.Contains(msg, "panic") {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming the file", r.code, r.stderr)
			}
			t.Logf("exit 2: %s", msg)
		})
	}
}
