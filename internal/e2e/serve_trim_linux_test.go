package e2e

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// A file posted to serve as it is, with seconds of quiet room noise after
// the words (a key held on, a recording left running), gives the words
// transcribe gives for it: both decode up to the end of the speech, so the
// tail can neither add a hallucination nor change the last words.
func TestServeDecodesAsTranscribe(t *testing.T) {
	srv := startServe(t)
	rng := rand.New(rand.NewPCG(7, 11))
	var files []string
	for _, c := range testenv.RealSpeech(t)[:3] {
		s := append([]float32(nil), c.Samples...)
		for range 6 * audio.SampleRate {
			s = append(s, float32(rng.NormFloat64())*0.002) // about -54 dBFS
		}
		var b bytes.Buffer
		if err := audio.EncodeWAV(&b, s, audio.SampleRate, 1, audio.PCM16); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), c.Name+"-tail.wav")
		if err := os.WriteFile(f, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	r := whisperkey(t, append([]string{"transcribe", "--config", noConfig(t), "--language", "en"}, files...)...)
	local := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(local) != len(files) {
		t.Fatalf("transcribe: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for i, f := range files {
		code, body := postAudio(t, srv.url, f)
		if got := strings.TrimSpace(body); code != 200 || got != local[i] {
			t.Errorf("%s: serve answered %d %q; transcribe gives %q", filepath.Base(f), code, got, local[i])
		}
	}
}
