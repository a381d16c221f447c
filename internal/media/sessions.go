package media

import (
	"context"
	"math"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Windows has no MPRIS: what is reachable without WinRT is each program's
// audio session on the default output (WASAPI), with its own volume and
// mute. There lower turns the playing sessions down and pause mutes them,
// since a session cannot be paused (docs/configuration.md says so); the
// rules for what is put back are below, the same on every system, and the
// WASAPI calls are in sessions_windows.go.

// audioSession is one other program's audio session on the default output.
// Its methods fail once the session is gone.
type audioSession interface {
	Name() string // for the log: the program's, or the session's own name
	Playing() (bool, error)
	Volume() (float32, error)
	SetVolume(float32) error
	Muted() (bool, error)
	SetMuted(bool) error
	Release()
}

// sessionSystem lists the other programs' sessions: not this process's own,
// not the system sounds.
type sessionSystem interface {
	// Enter readies the calling goroutine, which stays on its OS thread,
	// for the calls that follow until leave.
	Enter() (leave func(), err error)
	Sessions() ([]audioSession, error)
}

// heldSession is one session changed at the start of a recording.
type heldSession struct {
	s      audioSession
	volume float32 // lower: its level before
	set    float32 // lower: the level we set
}

// changeSession lowers or mutes s if it is playing, and says whether it did.
// A session the user has muted is left alone in either mode: pause would
// have nothing to undo, and lower nothing to be heard.
func changeSession(mode choice.MediaMode, s audioSession) (heldSession, bool) {
	h := heldSession{s: s}
	playing, err := s.Playing()
	if err != nil || !playing {
		return h, false
	}
	if muted, err := s.Muted(); err != nil || muted {
		return h, false
	}
	switch mode {
	case choice.MediaLower:
		v, err := s.Volume()
		if err != nil || v == 0 {
			return h, false
		}
		h.volume, h.set = v, v*LowerFactor
		if s.SetVolume(h.set) != nil {
			return h, false
		}
	case choice.MediaPause:
		if s.SetMuted(true) != nil {
			return h, false
		}
	default:
		return h, false
	}
	return h, true
}

// restoreSession puts back what changeSession did, unless the user changed
// it meanwhile: in lower mode a level other than the one we set (within
// volumeSlack) is theirs, in pause mode a session that is no longer muted is.
// A session that is gone is left. It says whether it restored s.
func restoreSession(mode choice.MediaMode, h heldSession) bool {
	switch mode {
	case choice.MediaLower:
		v, err := h.s.Volume()
		if err != nil || math.Abs(float64(v-h.set)) > volumeSlack {
			return false
		}
		return h.s.SetVolume(h.volume) == nil
	case choice.MediaPause:
		muted, err := h.s.Muted()
		if err != nil || !muted {
			return false
		}
		return h.s.SetMuted(false) == nil
	}
	return false
}

// beginSessions lowers or mutes the sessions playing now.
func (c *Controller) beginSessions(mode choice.MediaMode) {
	c.active, c.heldBy, c.sessions = true, mode, nil
	if mode == choice.MediaOff {
		return
	}
	list, err := c.sys.Sessions()
	if err != nil {
		if !c.warned {
			c.warned = true
			c.log.Warn("cannot list the programs' audio sessions", "err", err)
		}
		return
	}
	var names []string
	for _, s := range list {
		if h, ok := changeSession(mode, s); ok {
			c.sessions = append(c.sessions, h)
			names = append(names, s.Name())
		} else {
			s.Release()
		}
	}
	if len(c.sessions) > 0 || !c.nothing {
		c.nothing = len(c.sessions) == 0
		c.log.Info("media while recording", "mode", string(mode), "sessions", len(list), "changed", len(c.sessions), "programs", names)
	}
}

// endSessions restores the sessions beginSessions changed, except those the
// user changed meanwhile.
func (c *Controller) endSessions(context.Context) {
	c.active = false
	held := c.sessions
	c.sessions = nil
	if len(held) == 0 {
		return
	}
	restored := 0
	for _, h := range held {
		if restoreSession(c.heldBy, h) {
			restored++
		}
		h.s.Release()
	}
	c.log.Info("media restored", "mode", string(c.heldBy), "changed", len(held), "restored", restored)
}
