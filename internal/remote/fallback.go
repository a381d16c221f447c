package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Transcriber is what both the remote client and the local engine
// (backend.Service) offer.
type Transcriber interface {
	Transcribe(ctx context.Context, samples []float32, opt whisper.Options) (*whisper.Result, error)
}

// Fallback sends each transcription to the remote server first and, when
// that fails, to the local engine. It says so once per outage through
// notify, not once per dictation, and again when the server is back.
type Fallback struct {
	remote *Client
	local  Transcriber // nil: no local engine, the remote error is returned
	notify func(msg string)
	log    *slog.Logger

	mu   sync.Mutex
	down bool // the last remote call failed
}

// NewFallback wraps remote with local (nil for none); notify (nil for none)
// gets a sentence for the tray when the server fails and when it recovers.
func NewFallback(remote *Client, local Transcriber, notify func(string), log *slog.Logger) *Fallback {
	if notify == nil {
		notify = func(string) {}
	}
	return &Fallback{remote: remote, local: local, notify: notify, log: log.With("pkg", "remote")}
}

// Status is the tray's line for the engine in use.
func (f *Fallback) Status() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down && f.local != nil {
		return fmt.Sprintf("Remote: %s unreachable — using the local engine", f.remote.Host())
	}
	return "Remote: " + f.remote.Host()
}

// Transcribe tries the server, then the local engine.
func (f *Fallback) Transcribe(ctx context.Context, samples []float32, opt whisper.Options) (*whisper.Result, error) {
	res, err := f.remote.Transcribe(ctx, samples, opt)
	if err == nil {
		f.setDown(false, nil)
		return res, nil
	}
	if errors.Is(err, whisper.ErrNoAudio) || ctx.Err() != nil {
		return nil, err // not the server's fault
	}
	f.setDown(true, err)
	if f.local == nil {
		return nil, err
	}
	res, lerr := f.local.Transcribe(ctx, samples, opt)
	if lerr != nil {
		return nil, fmt.Errorf("%w; the local engine failed too: %w", err, lerr)
	}
	return res, nil
}

func (f *Fallback) setDown(down bool, err error) {
	f.mu.Lock()
	was := f.down
	f.down = down
	f.mu.Unlock()
	switch {
	case down && !was:
		// err names the host and the status, never the key or the audio.
		f.log.Warn("remote server failed", "err", err)
		if f.local != nil {
			f.notify(fmt.Sprintf("Remote server %s failed — using the local engine", f.remote.Host()))
		} else {
			f.notify(fmt.Sprintf("Remote server %s failed and there is no local engine", f.remote.Host()))
		}
	case !down && was:
		f.log.Info("remote server is back")
		f.notify("Remote: " + f.remote.Host() + " is back")
	}
}
