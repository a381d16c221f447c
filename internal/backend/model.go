package backend

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// model is a loaded Whisper model: its transcriber over a warm engine worker.
type model struct {
	*whisper.Transcriber
	client *engine.Client
}

// transcriber is what Verify runs on a GPU and on the CPU.
type transcriber interface {
	Transcribe(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error)
}

// openModel checks the model directory, loads its tokenizer and starts an
// engine worker on it. A broken model is reported before any worker starts.
func openModel(ctx context.Context, spec engine.Spec, opt engine.Options, log *slog.Logger) (*model, error) {
	if _, err := ct2bin.Inspect(spec.ModelDir); err != nil {
		return nil, err
	}
	tok, err := whisper.LoadTokenizer(spec.ModelDir)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	c, err := engine.Start(ctx, spec, opt, log)
	if err != nil {
		return nil, err
	}
	t := whisper.NewTranscriber(c, tok, c.Ready().Model.NMels, log)
	if err := canAlign(spec, c.Ready()); err != nil {
		t.UseAligner(nil, err)
	} else {
		t.UseAligner(c, nil)
	}
	return &model{Transcriber: t, client: c}, nil
}

// canAlign says why word timestamps are unavailable on this model and
// library, or nil.
func canAlign(spec engine.Spec, ready engine.Ready) error {
	if !ready.CanAlign {
		// The answer may go to a remote client: no paths in it.
		return fmt.Errorf("%w: this server's engine library has no align op (it was built before word timestamps); update WhisperKey or rebuild the engine (make engine)",
			whisper.ErrNoWordTimestamps)
	}
	return whisper.CheckAlignmentHeads(spec.ModelDir)
}

// Close stops the engine worker.
func (m *model) Close() error { return m.client.Close() }
