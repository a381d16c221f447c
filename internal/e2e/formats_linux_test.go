//go:build linux

package e2e

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue 34 items 5 and 6, through the real binary, serve and transcribe
// alike: an AAC .m4a with its index after the audio (ffmpeg's and most
// phones' default), which serve piped to ffmpeg and found no audio in; an
// 8 kHz MPEG-2.5 MP3 (LAME writes them), which the Go decoder refuses; a
// FLAC whose STREAMINFO says 2^36-1 samples but holds a sentence, which serve
// refused as too long; and a WAV of 7-bit samples with block align 0, which
// serve answered with 200 "" and now refuses, saying what is wrong.
func TestFormatsPeopleSend(t *testing.T) {
	const said = "Remember to buy milk, bread and eggs on the way home."
	dir := t.TempDir()
	testenv.Speech(t, "check") // espeak-ng and sox present
	// The American voice stays clear at 8 kHz, where the default one does not.
	wav := filepath.Join(dir, "said.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, said).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	convert := func(name string, args ...string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		cmd := exec.Command("ffmpeg", append(append([]string{"-nostdin", "-loglevel", "error", "-i", wav}, args...), out)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg %v: %v\n%s", args, err, msg)
		}
		return out
	}
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := testenv.FileWriter(t, dir)

	m4a := convert("phone.m4a", "-ar", "48000", "-ac", "2", "-c:a", "aac", "-b:a", "320k")
	// ffmpeg reads ahead about 64 KiB from a pipe and cannot go back for the audio.
	if b := read(m4a); bytes.Index(b, []byte("moov")) < 64<<10 || bytes.Index(b, []byte("mdat")) > 64 {
		t.Fatalf("phone.m4a has its index at %d: want it after 64 KiB of audio", bytes.Index(b, []byte("moov")))
	}
	mp3 := convert("low.mp3", "-ar", "8000", "-c:a", "libmp3lame", "-b:a", "48k")
	if v := mpegVersion(t, read(mp3)); v != 0 {
		t.Fatalf("low.mp3 is MPEG version bits %02b, want 00 (MPEG-2.5)", v)
	}
	flac := write("declares-hours.flac", audiotest.DeclareLength(read(convert("speech.flac", "-c:a", "flac")), 1<<36-1))
	speech, err := audio.DecodeFile(wav, audio.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sevenBit := write("seven-bit.wav", audiotest.SevenBitWAV(speech, audio.SampleRate))

	// Telephone bandwidth costs a word or two ("egg", "red"): the bound
	// tells a decoded sentence from noise or silence.
	files := []struct {
		path   string
		maxWER float64
	}{{m4a, 0.2}, {mp3, 0.35}, {flac, 0.2}}
	srv := startServe(t)
	for _, f := range files {
		code, body := postAudio(t, srv.url, f.path)
		t.Logf("serve, %s: %d %q", filepath.Base(f.path), code, body)
		if code != http.StatusOK || whisper.WordErrorRate(said, body) > f.maxWER {
			t.Errorf("serve, %s: %d %q", filepath.Base(f.path), code, body)
		}
	}
	code, body := postAudio(t, srv.url, sevenBit)
	if code != http.StatusBadRequest || !strings.Contains(body, "block align (bytes per frame) of 0") || !strings.Contains(body, "ffmpeg -i") {
		t.Errorf("serve, the 7-bit WAV: %d %s; want 400 naming the block align and the way out", code, body)
	}

	r := whisperkey(t, "transcribe", m4a, mp3, flac, "--model", testenv.Model(t, "base"), "--device", "cpu", "--language", "en")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != len(files) {
		t.Fatalf("transcribe: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for i, l := range lines {
		t.Logf("transcribe, %s: %q", filepath.Base(files[i].path), l)
		if whisper.WordErrorRate(said, l) > files[i].maxWER {
			t.Errorf("transcribe, %s: %q", filepath.Base(files[i].path), l)
		}
	}
	r = whisperkey(t, "transcribe", sevenBit)
	if msg := strings.TrimSpace(r.stderr); r.code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, sevenBit) || !strings.Contains(msg, "block align (bytes per frame) of 0") {
		t.Errorf("transcribe, the 7-bit WAV: exit %d, stderr %q; want exit 2 and one line naming the file and its block align", r.code, r.stderr)
	}
}

// postAudio sends the file at path to serve, to be transcribed as English
// text, and returns the status and body.
func postAudio(t *testing.T, url, path string) (int, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, _, got := send(t, formRequest(t, url, [][2]string{{"response_format", "text"}, {"language", "en"}}, filepath.Base(path), b))
	return code, got
}

// mpegVersion is the version bits of an MP3's first frame, after its ID3v2
// tag: 00 is MPEG-2.5, 10 MPEG-2, 11 MPEG-1.
func mpegVersion(t *testing.T, b []byte) byte {
	t.Helper()
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		b = b[10+(int(b[6])<<21|int(b[7])<<14|int(b[8])<<7|int(b[9])):]
	}
	if len(b) < 2 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		t.Fatalf("no MPEG frame where the audio starts: % x", b[:min(len(b), 4)])
	}
	return b[1] >> 3 & 3
}
