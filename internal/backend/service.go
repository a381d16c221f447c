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
// model or device. The new model loads outside the lock and is swapped in
// under it; transcriptions hold a read lock, so the swap waits for the
// dictation in flight. A model on the CPU goes on serving while its successor
// loads; one on a GPU is closed first, as two may not fit the card's memory.
type Service struct {
	log *slog.Logger

	switching sync.Mutex // one switch at a time

	mu  sync.RWMutex // guards cur, dir and opt
	cur *Loaded
	dir string
	opt Options

	// Seams for tests: keepWhileLoading (nil: servesWhileLoading) and
	// loading, which runs when the new model starts loading.
	keepWhileLoading func(*Loaded) bool
	loading          func()
}

// servesWhileLoading reports whether l may go on serving while another model
// loads: only a CPU model, whose memory is the computer's.
func servesWhileLoading(l *Loaded) bool { return l.Spec.Device == "cpu" }

// Switched describes a finished switch.
type Switched struct {
	Message  string
	ModelDir string
	Load     time.Duration
}

// warm runs one short transcription on each of l's engine workers, the
// background one of early transcriptions too once it has loaded, so the
// first real dictation is as fast as the rest (first-call allocations,
// thread pools, page faults) and finds no worker still loading.
func (s *Service) warm(ctx context.Context, l *Loaded, sample []float32) {
	if len(sample) == 0 {
		return
	}
	if err := s.probeWorkers(ctx, l, sample, "engine warmed up"); err != nil {
		s.log.Warn("warm-up transcription failed", "err", err)
	}
}

// probeWorkers runs probe on l's main worker and then on its background
// worker, when it has one, and logs msg with each one's time.
func (s *Service) probeWorkers(ctx context.Context, l *Loaded, sample []float32, msg string) error {
	start := time.Now()
	if err := probe(ctx, l, sample); err != nil {
		return err
	}
	s.log.Info(msg, "worker", "main", "took", time.Since(start))
	bg := l.model.background()
	if bg == nil {
		return nil
	}
	start = time.Now()
	if err := bg.Wait(ctx); err != nil {
		return fmt.Errorf("background worker: %w", err)
	}
	loaded := time.Since(start)
	start = time.Now()
	if err := probe(whisper.Yielding(ctx), l, sample); err != nil {
		return fmt.Errorf("background worker: %w", err)
	}
	s.log.Info(msg, "worker", "background", "took", time.Since(start), "waited_for_load", loaded)
	return nil
}

// probe transcribes up to 2 s of sample on l.
func probe(ctx context.Context, l *Loaded, sample []float32) error {
	o := whisper.DefaultOptions()
	o.Language, o.Temperatures = "en", []float32{0}
	n := min(len(sample), 2*whisper.SampleRate)
	_, err := l.Transcribe(ctx, sample[:n], o)
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

// SetYielding turns the current model's background worker on or off
// (Loaded.SetYielding); a switch in flight keeps the options it was given.
func (s *Service) SetYielding(on bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.cur != nil {
		s.cur.SetYielding(on)
	}
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

// Switch loads modelDir with opt in a new worker and swaps it in. If that
// fails, dictation keeps working on the previous model (loaded again when it
// had to be closed first), and the error says what went wrong.
func (s *Service) Switch(ctx context.Context, modelDir string, opt Options) (Switched, error) {
	s.switching.Lock()
	defer s.switching.Unlock()
	start := time.Now()
	s.mu.RLock()
	old, oldDir, oldOpt := s.cur, s.dir, s.opt
	s.mu.RUnlock()
	keep := s.keepWhileLoading
	if keep == nil {
		keep = servesWhileLoading
	}
	serving := old != nil && keep(old)
	if old != nil && !serving {
		s.mu.Lock() // waits for the dictation in flight
		s.cur = nil
		s.mu.Unlock()
		_ = old.Close()
	}
	if s.loading != nil {
		s.loading()
	}
	l, err := Open(ctx, modelDir, opt, s.log)
	if err != nil {
		return Switched{}, s.recover(ctx, modelDir, err, serving, oldDir, oldOpt)
	}
	if !opt.Cold {
		s.warm(ctx, l, opt.Sample)
	}
	s.mu.Lock()
	s.cur, s.dir, s.opt = l, modelDir, opt
	s.mu.Unlock()
	if serving {
		_ = old.Close()
	}
	took := time.Since(start)
	s.log.Info("model switched", "model", modelDir, "device", l.Spec.Device, "load", took, "served_meanwhile", serving)
	return Switched{Message: l.Message, ModelDir: modelDir, Load: took}, nil
}

// recover follows a failed load of modelDir: the previous model still serves,
// or is loaded again, or, when that fails too, none is left (ErrNoModel).
func (s *Service) recover(ctx context.Context, modelDir string, err error, serving bool, oldDir string, oldOpt Options) error {
	switch {
	case serving:
		return fmt.Errorf("switch to %s: %w; still using %s", modelDir, err, oldDir)
	case oldDir == "":
		return fmt.Errorf("load %s: %w", modelDir, err)
	}
	back, berr := Open(ctx, oldDir, oldOpt, s.log)
	s.mu.Lock()
	defer s.mu.Unlock()
	if berr != nil {
		// Nothing is loaded now: Current is nil and Transcribe says
		// ErrNoModel until a later Switch succeeds.
		s.dir = ""
		return fmt.Errorf("switch to %s: %w (and reloading %s failed: %v): %w", modelDir, err, oldDir, berr, ErrNoModel)
	}
	s.cur = back
	return fmt.Errorf("switch to %s: %w; still using %s", modelDir, err, oldDir)
}

// Recheck runs one short transcription on each of the current model's
// workers, as after the computer woke from sleep: a worker that died
// meanwhile is restarted by the engine client, and the first dictation
// afterwards finds the model paged in.
// It does nothing when no model is loaded or there is no sample to run.
func (s *Service) Recheck(ctx context.Context) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.cur == nil || len(s.opt.Sample) == 0 {
		return nil
	}
	if err := s.probeWorkers(ctx, s.cur, s.opt.Sample, "engine checked"); err != nil {
		return fmt.Errorf("engine check: %w", err)
	}
	return nil
}

// Close stops the worker, after a switch in flight (cancel its context to
// cut it short), so no model is swapped in after Close.
func (s *Service) Close() error {
	s.switching.Lock()
	defer s.switching.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	return err
}
