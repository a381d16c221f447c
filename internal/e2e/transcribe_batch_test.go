package e2e

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Several files go through one engine process, in order, one JSON line each;
// --short-window turns the short window on and the JSON says which path ran.
func TestTranscribeSeveralFiles(t *testing.T) {
	model := testenv.Model(t, "base")
	said := []string{"Please call me back when you get this message.", "The coffee machine on the second floor is broken again."}
	wavs := []string{speechWAV(t, said[0]), speechWAV(t, said[1])}
	type line struct {
		File    string `json:"file"`
		Text    string `json:"text"`
		Path    string `json:"path"`
		Timings struct {
			Features int64 `json:"features_ns"`
			Engine   int64 `json:"engine_ns"`
			Total    int64 `json:"total_ns"`
		} `json:"timings"`
	}
	for _, tc := range []struct {
		name  string
		extra []string
		paths []string // allowed paths
	}{
		{"default on the CPU: the short window", nil, []string{whisper.PathShort, whisper.PathShortThenFull}},
		{"full window", []string{"--full-window"}, []string{whisper.PathFull}},
		{"short window", []string{"--short-window"}, []string{whisper.PathShort, whisper.PathShortThenFull}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"transcribe", "--json", "--language", "en", wavs[0], wavs[1], "--model", model}, tc.extra...)
			r := whisperkey(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var got []line
			sc := bufio.NewScanner(strings.NewReader(r.stdout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var l line
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("line %d is not JSON: %v\n%s", len(got)+1, err, sc.Text())
				}
				got = append(got, l)
			}
			if len(got) != 2 {
				t.Fatalf("got %d JSON lines, want 2:\n%s", len(got), r.stdout)
			}
			for i, l := range got {
				if l.File != wavs[i] {
					t.Errorf("line %d is for %s, want %s (files in order)", i+1, l.File, wavs[i])
				}
				if wer := whisper.WordErrorRate(said[i], l.Text); wer > 0.15 {
					t.Errorf("line %d: WER %.2f: %q", i+1, wer, l.Text)
				}
				if !slices.Contains(tc.paths, l.Path) {
					t.Errorf("line %d: path %q, want one of %v", i+1, l.Path, tc.paths)
				}
				if l.Timings.Features <= 0 || l.Timings.Engine <= 0 || l.Timings.Total < l.Timings.Engine {
					t.Errorf("line %d: timings %+v", i+1, l.Timings)
				}
			}
		})
	}
	if r := whisperkey(t, "transcribe", wavs[0], "missing-file.wav", "--model", model); r.code == 0 || !strings.Contains(r.stderr, "missing-file.wav") {
		t.Errorf("a missing file in a batch: exit %d, stderr %q; want an error naming it", r.code, r.stderr)
	}
}

// Without the speech detector's files the command still transcribes, and
// says once why presses without speech will be decoded.
func TestTranscribeWithoutSpeechDetector(t *testing.T) {
	model := testenv.Model(t, "base")
	const said = "Please call me back when you get this message."
	wav := speechWAV(t, said)
	t.Setenv("WHISPERKEY_VAD_DIR", t.TempDir())
	r := whisperkey(t, "transcribe", "--language", "en", wav, "--model", model)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if wer := whisper.WordErrorRate(said, r.stdout); wer > 0.15 {
		t.Errorf("WER %.2f: %q", wer, r.stdout)
	}
	if strings.Count(r.stderr, "no speech detector") != 1 {
		t.Errorf("stderr %q: want one warning about the missing speech detector", r.stderr)
	}
}
