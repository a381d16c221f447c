package whisper_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A hostile prompt costs no more than a short one: a 1 MB one-word prompt
// and an invalid-UTF-8 one transcribe in about the time of the clip, and
// give exactly the text of a 16 KB prompt of the same kind, which reaches
// the decoder as the same tokens (the same decode, so the words are
// compared exactly).
func TestHostilePromptsBounded(t *testing.T) {
	m := openBase(t)
	clip := testenv.Speech(t, sentences[1])
	plain, err := m.Transcribe(context.Background(), clip, whisper.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, prompt, short string
	}{
		{"1 MB one-word", strings.Repeat("a", 1<<20), strings.Repeat("a", 16<<10)},
		{"64 KB of an invalid byte", strings.Repeat("\x80", 64<<10), strings.Repeat("\x80", 16<<10)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opt := whisper.DefaultOptions()
			opt.InitialPrompt = tc.prompt
			start := time.Now()
			res, err := m.Transcribe(context.Background(), clip, opt)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			opt.InitialPrompt = tc.short
			cut, err := m.Transcribe(context.Background(), clip, opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s in %s: %q (no prompt: %q)", tc.name, took, res.Text, plain.Text)
			if res.Text != cut.Text {
				t.Fatalf("the long prompt gave %q, the 16 KB one %q", res.Text, cut.Text)
			}
			if wer := whisper.WordErrorRate(sentences[1], res.Text); wer > 0.3 {
				t.Fatalf("WER %.2f with the prompt: %q", wer, res.Text)
			}
			// Generous: the transcription alone takes about a second; the
			// unbounded 1 MB prompt took far longer than this.
			if took > 60*time.Second {
				t.Fatalf("took %s", took)
			}
		})
	}
}
