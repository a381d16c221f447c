package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// ErrClosed is returned by Store methods called after Close.
var ErrClosed = errors.New("config store is closed")

// Change tells a subscriber that the configuration was reloaded.
type Change struct {
	Old, New Config
	// NeedsEngineRestart is set when an Engine setting (model, device, device
	// index, compute type, CPU threads) changed: the worker must be restarted.
	NeedsEngineRestart bool
	// Err is set when the file was rejected; New then equals Old, the last good config.
	Err      error
	Warnings []Warning
}

// Store holds the current configuration, reloads it when the file changes and
// writes menu choices back to the file.
type Store struct {
	path string
	opts Options
	log  *slog.Logger
	cur  atomic.Pointer[Config]

	mu       sync.Mutex // serialises loads, writes and notifications
	err      error      // problem with the last load, nil if it was good
	warnings []Warning
	subs     []chan Change
	closed   bool
	watching bool
	stop     chan struct{}
	done     chan struct{} // closed when the watcher goroutine has ended
	once     sync.Once
}

// New loads the file at path. A missing or invalid file does not fail: the
// store then holds Defaults() and Err reports the problem for the user.
func New(path string, opts Options, log *slog.Logger) (*Store, error) {
	if path == "" {
		return nil, errors.New("config: empty file path")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{path: path, opts: opts.withDefaults(), log: log.With("pkg", "config"), stop: make(chan struct{})}
	cfg, warns, err := Load(path, s.opts)
	s.cur.Store(&cfg)
	s.err, s.warnings = err, warns
	s.logResult(err, warns)
	return s, nil
}

// Path returns the file the store reads and writes.
func (s *Store) Path() string { return s.path }

// Current returns the last good configuration.
func (s *Store) Current() Config { return *s.cur.Load() }

// Err returns the problem with the last load, or nil when the file is in use.
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Warnings returns the unknown keys found by the last load.
func (s *Store) Warnings() []Warning {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warnings
}

// Subscribe returns a channel that receives every reload. A subscriber that
// falls behind gets the pending changes merged into one. The channel is closed by Close.
func (s *Store) Subscribe() <-chan Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan Change, 1)
	if s.closed {
		close(ch)
		return ch
	}
	s.subs = append(s.subs, ch)
	return ch
}

// Watch starts reloading the file whenever it changes, until ctx ends or Close.
// It watches the folder (which must exist; EnsureFile makes it), so editors
// that save by renaming a new file over the old one are seen.
func (s *Store) Watch(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.watching:
		return errors.New("config: Watch called twice")
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := w.Add(dir); err != nil {
		_ = w.Close()
		return fmt.Errorf("watch config folder %s: %w", dir, err)
	}
	s.watching, s.done = true, make(chan struct{})
	go s.watch(ctx, w)
	return nil
}

func (s *Store) watch(ctx context.Context, w *fsnotify.Watcher) {
	defer close(s.done)
	defer w.Close()
	// One reload per burst of events: editors write, truncate and rename in steps.
	debounce := newStoppedTimer()
	defer debounce.Stop()
	name := filepath.Base(s.path)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) == name && ev.Op != fsnotify.Chmod {
				debounce.Reset(s.opts.Debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.log.Warn("config watcher error", "err", err)
		case <-debounce.C:
			s.reload()
		}
	}
}

// reload validates the file and commits it, or keeps the last good config.
func (s *Store) reload() {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, warns, err := Load(s.path, s.opts)
	s.commit(cfg, warns, err)
}

// commit swaps in cfg (unless err) and tells subscribers; s.mu is held.
func (s *Store) commit(cfg Config, warns []Warning, err error) {
	old := s.Current()
	hadErr, oldWarns := s.err != nil, s.warnings
	s.err, s.warnings = err, warns
	s.logResult(err, warns)
	if err != nil {
		s.notify(Change{Old: old, New: old, Err: err, Warnings: warns})
		return
	}
	// Our own Set seen again by the watcher is no news; a key misspelt or
	// fixed is, although the settings are the same (the key is ignored).
	if cfg == old && !hadErr && slices.Equal(oldWarns, warns) {
		return
	}
	s.cur.Store(&cfg)
	s.notify(Change{Old: old, New: cfg, NeedsEngineRestart: old.Engine != cfg.Engine, Warnings: warns})
}

func (s *Store) logResult(err error, warns []Warning) {
	for _, w := range warns {
		s.log.Warn("config has an unknown key", "warning", w.String())
	}
	if err != nil {
		s.log.Error("config rejected; keeping the last good config", "file", s.path, "err", err)
	}
}

// notify delivers c without blocking: a change the subscriber has not read yet is merged with c.
func (s *Store) notify(c Change) {
	for _, ch := range s.subs {
		select {
		case ch <- c:
			continue
		default:
		}
		merged := c
		select {
		case p := <-ch:
			merged.Old = p.Old
			merged.NeedsEngineRestart = p.Old.Engine != c.New.Engine
		default:
		}
		select {
		case ch <- merged:
		default: // unreachable: only notify sends, under s.mu, and the buffer was just emptied
		}
	}
}

// Set writes one key to the file, keeping comments and layout, then makes it
// current. key is a dotted Key* constant; value is a string, int, bool or
// time.Duration. An invalid value leaves the file untouched and returns an error
// matching ErrInvalid.
func (s *Store) Set(key string, value any) error {
	f, ok := lookupField(key)
	if !ok {
		return fmt.Errorf("config: set unknown key %q", key)
	}
	if env := envName(f.key); os.Getenv(env) != "" {
		return &Error{File: env, Key: f.key, Reason: "is set by the environment variable " + env + ", which overrides the file",
			Fix: "unset " + env + " to choose it here"}
	}
	var tmp Config
	if _, err := convert(f.ptr(&tmp), value); err != nil {
		return &Error{File: s.path, Key: f.key, Value: fmt.Sprint(value), Allowed: f.allowed,
			Fix: fmt.Sprintf("set %s to %s", f.key, f.hint)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	data, err := os.ReadFile(s.path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read config %s: %w", s.path, err)
	}
	out, err := setInFile(data, f.key, render(f.ptr(&tmp)))
	if err != nil {
		return syntaxError(s.path, err)
	}
	cfg, warns, err := parse(s.path, out, s.opts)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.path, out); err != nil {
		return err
	}
	s.commit(cfg, warns, nil)
	return nil
}

// Close stops the watcher, waits for it and closes the subscriber channels. It is idempotent.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		done := s.done
		s.mu.Unlock()
		close(s.stop)
		if done != nil {
			<-done
		}
		s.mu.Lock()
		for _, ch := range s.subs {
			close(ch)
		}
		s.subs = nil
		s.mu.Unlock()
	})
	return nil
}
