package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Service keeps one model warm and swaps it when the user picks another
// model or device. Transcriptions hold a read lock, so a switch waits for the
// dictation in flight to finish on the old model; the old worker exits
// before the new one starts, so there is never more than one.
type Service struct {
	log *slog.Logger
	mu  sync.RWMutex
	cur *Loaded
	dir string
	opt Options
}

// Switched describes a finished switch.
type Switched struct {
	Message  string
	ModelDir string
	Load     time.Duration
}

// warm runs one short transcription so the first real dictation is as fast
// as the rest (first-call allocations, thread pools, page faults).
func (s *Service) warm(ctx context.Context, l *Loaded) {
	if len(s.opt.Sample) == 0 {
		return
	}
	start := time.Now()
	if err := s.probe(ctx, l); err != nil {
		s.log.Warn("warm-up transcription failed", "err", err)
		return
	}
	s.log.Info("engine warmed up", "took", time.Since(start))
}

// probe transcribes up to 2 s of the sample on l.
func (s *Service) probe(ctx context.Context, l *Loaded) error {
	o := whisper.DefaultOptions()
	o.Language, o.Temperatures = "en", []float32{0}
	n := min(len(s.opt.Sample), 2*whisper.SampleRate)
	_, err := l.Transcribe(ctx, s.opt.Sample[:n], o)
	return err
}

// ErrNoModel means no model is loaded: a switch failed and so did going back
// to the previous model, or the service was made with NewEmpty. Switch loads one.
var ErrNoModel = errors.New("no speech model is loaded; pick a model in the tray menu")

// NewEmpty makes a service with no model, for an app that starts before its
// model is available (first run with no network); Switch loads one.
func NewEmpty(opt Options, log *slog.Logger) *Service {
	return &Service{log: log.With("pkg", "backend"), opt: opt}
}

// Current is the loaded model and the decision that placed it; nil when
// none is loaded (see ErrNoModel).
func (s *Service) Current() *Loaded {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cur
}

// Transcribe runs on the current model.
func (s *Service) Transcribe(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.cur == nil {
		return nil, ErrNoModel
	}
	return s.cur.Transcribe(ctx, samples, o)
}

// Switch loads modelDir with opt in a new worker. If that fails, the
// previous model is loaded again so dictation keeps working, and the error
// says what went wrong.
func (s *Service) Switch(ctx context.Context, modelDir string, opt Options) (Switched, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	if s.cur != nil {
		_ = s.cur.Close()
		s.cur = nil
	}
	l, err := Open(ctx, modelDir, opt, s.log)
	if err != nil {
		if s.dir == "" {
			return Switched{}, fmt.Errorf("load %s: %w", modelDir, err)
		}
		back, berr := Open(ctx, s.dir, s.opt, s.log)
		if berr != nil {
			// Nothing is loaded now: Current is nil and Transcribe says
			// ErrNoModel until a later Switch succeeds.
			prev := s.dir
			s.dir = ""
			return Switched{}, fmt.Errorf("switch to %s: %w (and reloading %s failed: %v): %w", modelDir, err, prev, berr, ErrNoModel)
		}
		s.cur = back
		return Switched{}, fmt.Errorf("switch to %s: %w; still using %s", modelDir, err, s.dir)
	}
	s.cur, s.dir, s.opt = l, modelDir, opt
	s.warm(ctx, l)
	took := time.Since(start)
	s.log.Info("model switched", "model", modelDir, "device", l.Spec.Device, "load", took)
	return Switched{Message: l.Message, ModelDir: modelDir, Load: took}, nil
}

// Recheck runs one short transcription on the current model, as after the
// computer woke from sleep: a worker that died meanwhile is restarted by the
// engine client, and the first dictation afterwards finds the model paged in.
// It does nothing when no model is loaded or there is no sample to run.
func (s *Service) Recheck(ctx context.Context) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.cur == nil || len(s.opt.Sample) == 0 {
		return nil
	}
	start := time.Now()
	if err := s.probe(ctx, s.cur); err != nil {
		return fmt.Errorf("engine check: %w", err)
	}
	s.log.Info("engine checked", "took", time.Since(start))
	return nil
}

// Close stops the worker.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	return err
}
