package backend

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// model is a loaded Whisper model: its transcriber over a warm engine worker.
type model struct {
	*whisper.Transcriber
	client *engine.Client
	spec   engine.Spec
	opt    engine.Options
	log    *slog.Logger

	mu sync.Mutex // guards wantYield and yielding
	// wantYield is the last setYielding: a repeated call changes nothing.
	wantYield bool
	// yielding is the background worker of work that gives way, or nil.
	yielding *engine.Client
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
	tok, err := whisper.LoadTokenizer(spec.ModelDir) // says the model and the fix
	if err != nil {
		return nil, err
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
	return &model{Transcriber: t, client: c, spec: spec, opt: opt, log: log}, nil
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

// maxYieldingModel is the largest model.bin given a second worker: the
// second copy of the model costs its size in memory again.
const maxYieldingModel = 1 << 30

// setYielding starts, in the background, a second worker for the
// transcriber's work that gives way (whisper.Transcriber.UseForYielding), or
// stops it; a model too large for two copies keeps one worker. Work giving
// way while its worker stops finishes the call in flight there, and makes
// its later calls on the main worker.
func (m *model) setYielding(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if on == m.wantYield {
		return
	}
	m.wantYield = on
	if !on {
		if m.yielding != nil {
			m.UseForYielding(nil)
			_ = m.yielding.Close()
			m.yielding = nil
			m.log.Info("background engine worker stopped")
		}
		return
	}
	fi, err := os.Stat(filepath.Join(m.spec.ModelDir, "model.bin"))
	if err != nil {
		m.log.Warn("no background engine worker", "err", err)
		return
	}
	if fi.Size() > maxYieldingModel {
		m.log.Info("no background engine worker: the model is too large for a second copy", "bytes", fi.Size())
		return
	}
	opt := m.opt
	opt.Busy = m.client.Busy // a reload after a drop waits for the dictation
	c, err := engine.StartBackground(m.spec, opt, m.log)
	if err != nil {
		m.log.Warn("no background engine worker", "err", err)
		return
	}
	m.yielding = c
	m.UseForYielding(c)
}

// background is the worker of work that gives way, or nil.
func (m *model) background() *engine.Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.yielding
}

// Close stops the engine workers.
func (m *model) Close() error {
	m.setYielding(false)
	return m.client.Close()
}
