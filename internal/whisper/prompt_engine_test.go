package whisper_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A hostile prompt costs no more than a short one, and is dropped as the
// text it is not: a 1 MB one-word prompt and an invalid-UTF-8 one
// transcribe in about the time of the clip and give exactly the text of no
// prompt (the same decode, so the words are compared exactly).
func TestHostilePromptsBounded(t *testing.T) {
	m := openBase(t)
	clip := testenv.Speech(t, whisper.Sentences[1])
	plain, err := m.Transcribe(context.Background(), clip, whisper.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, prompt string }{
		{"1 MB one-word", strings.Repeat("a", 1<<20)},
		{"64 KB of an invalid byte", strings.Repeat("\x80", 64<<10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := whisper.DefaultOptions()
			opt.InitialPrompt = tc.prompt
			start := time.Now()
			res, err := m.Transcribe(context.Background(), clip, opt)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s in %s: %q", tc.name, took, res.Text)
			if res.Text != plain.Text {
				t.Fatalf("with the prompt %q, without %q", res.Text, plain.Text)
			}
			// Generous: the transcription alone takes about a second; the
			// unbounded 1 MB prompt took far longer than this.
			if took > 60*time.Second {
				t.Fatalf("took %s", took)
			}
		})
	}
}
