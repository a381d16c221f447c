package whisper

import (
	"context"
	"log/slog"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
)

// TestModel is a model for the tests: the transcriber over a real engine
// worker (the app's own comes from internal/backend).
type TestModel struct {
	*Transcriber
	Client *engine.Client
	Tok    *Tokenizer
}

// OpenTestModel starts a worker on spec; the test's cleanup closes it.
func OpenTestModel(tb testing.TB, spec engine.Spec, opt engine.Options, log *slog.Logger) *TestModel {
	tb.Helper()
	tok, err := LoadTokenizer(spec.ModelDir)
	if err != nil {
		tb.Fatalf("load tokenizer: %v", err)
	}
	c, err := engine.Start(context.Background(), spec, opt, log)
	if err != nil {
		tb.Fatalf("open model: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return &TestModel{Transcriber: NewTranscriber(c, tok, c.Ready().Model.NMels, log), Client: c, Tok: tok}
}

// Sentences are what a person might dictate, for the tests to speak with
// espeak-ng. espeak's robotic voice defeats the base model on some words
// whatever the decoder does ("review the pull request" → "remove the poor
// request", "weather" → "web of"; faster-whisper gives the same), so sentences
// it pronounces clearly were chosen.
var Sentences = []string{
	"The meeting has been moved to Thursday afternoon at three o'clock.",
	"Remember to buy milk, bread and eggs on the way home.",
	"Our new website will launch next month with a fresh design.",
	"Please call me back when you get this message.",
	"The coffee machine on the second floor is broken again.",
	"I think we should hire two more engineers for the mobile team.",
}

// TokenizerJSONPeakIfAsked runs the peak-memory helper of
// scripts/bench_libs.sh when asked to (tokenizer_json_libs_test.go).
func TokenizerJSONPeakIfAsked() { tokenizerJSONPeakIfAsked() }
