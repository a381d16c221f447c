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
