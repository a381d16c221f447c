package whisper

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
)

// Model is a loaded Whisper model: its tokenizer and a warm engine worker.
type Model struct {
	*Transcriber
	Client *engine.Client
	Tok    *Tokenizer
	Info   *ct2bin.Info
}

// Open checks the model directory, loads its tokenizer and starts an engine
// worker on it. A broken model is reported before any worker starts.
func Open(ctx context.Context, spec engine.Spec, opt engine.Options, log *slog.Logger) (*Model, error) {
	info, err := ct2bin.Inspect(spec.ModelDir)
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(spec.ModelDir)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	c, err := engine.Start(ctx, spec, opt, log)
	if err != nil {
		return nil, err
	}
	return &Model{
		Transcriber: NewTranscriber(c, tok, c.Ready().Model.NMels, log),
		Client:      c,
		Tok:         tok,
		Info:        info,
	}, nil
}

// Close stops the engine worker.
func (m *Model) Close() error { return m.Client.Close() }
