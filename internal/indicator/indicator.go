package indicator

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// State is what the indicator shows.
type State int

// States. Recording and Transcribing stay until the next call; NothingHeard and
// Error show for Config.FlashFor and then hide themselves.
const (
	Hidden State = iota
	Recording
	Transcribing
	NothingHeard
	Error
)

func (s State) String() string {
	switch s {
	case Hidden:
		return "hidden"
	case Recording:
		return "recording"
	case Transcribing:
		return "transcribing"
	case NothingHeard:
		return "nothing heard"
	case Error:
		return "error"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// ErrOff is returned by New when the placement is "off": the caller uses no indicator.
var ErrOff = errors.New("indicator turned off")

// ErrUnavailable means this system cannot show the indicator (no display, a build without cgo).
var ErrUnavailable = errors.New("indicator unavailable")

// Config configures an Indicator. Zero fields take the defaults.
type Config struct {
	Placement choice.Placement // choice.Bottom (also ""), Cursor or IndicatorOff
	FlashFor  time.Duration    // how long NothingHeard and Error stay; default 1.5s
	Margin    int              // pixels between the bottom of the monitor and the window; default 48
	// Getenv reads the environment that says which display to use (Linux:
	// XDG_SESSION_TYPE, WAYLAND_DISPLAY, XDG_RUNTIME_DIR, DISPLAY); nil is
	// os.Getenv. Tests point it at their own compositor.
	Getenv func(string) string
}

func (c Config) withDefaults() (Config, error) {
	switch c.Placement {
	case "":
		c.Placement = choice.Bottom
	case choice.Bottom, choice.Cursor:
	case choice.IndicatorOff:
		return c, ErrOff
	default:
		return c, fmt.Errorf("indicator %q: use %s, %s or %s", string(c.Placement), choice.Bottom, choice.Cursor, choice.IndicatorOff)
	}
	if c.FlashFor <= 0 {
		c.FlashFor = 1500 * time.Millisecond
	}
	if c.Margin <= 0 {
		c.Margin = 48
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	return c, nil
}

// Size of the window, in pixels.
const (
	Width  = 240
	Height = 36
)

// Colours, 0xRRGGBB: a dark pill with a coloured dot per state.
const (
	colourBackground   = 0x202124
	colourText         = 0xf1f3f4
	colourRecording    = 0xe8453c
	colourTranscribing = 0xf2a600
	colourNothing      = 0x9aa0a6
	colourError        = 0xd93025
	colourLevelTrack   = 0x3c4043
	colourLevel        = 0x34a853
)

// DotColour is the colour of the state's dot (and of the level bar's owner); tests look for it.
func DotColour(s State) uint32 {
	switch s {
	case Recording:
		return colourRecording
	case Transcribing:
		return colourTranscribing
	case NothingHeard:
		return colourNothing
	case Error:
		return colourError
	}
	return colourBackground
}

// Rect is a window's place on the screen.
type Rect struct{ X, Y, W, H int }

// view is what one frame draws.
type view struct {
	state State
	level float32 // 0..1, recording only
	text  string
	live  bool // text is the hold's words so far (recording only)
	mic   bool // the microphone is open (SetMic)
}

// MicMark follows the words of a state other than Recording while the
// microphone is open (audio.pre_roll holds it between dictations); while
// recording, the red dot and the level bar say it is.
const MicMark = " · mic on"

// label is the text next to the dot.
func (v view) label() string {
	if v.mic && v.state != Recording && v.state != Hidden {
		return view{state: v.state, text: v.text}.label() + MicMark
	}
	switch v.state {
	case Recording:
		return v.text // the profile or the words so far, beside the level bar
	case Transcribing:
		if v.text != "" {
			return v.text // e.g. waiting for the model
		}
		return "Transcribing…"
	case NothingHeard:
		return "Nothing heard"
	case Error:
		if v.text != "" {
			return v.text
		}
		return "Something went wrong"
	}
	return ""
}

// place puts a w×h window on the monitor: bottom centre, or next to the pointer
// and kept on that monitor.
func place(placement choice.Placement, mon Rect, pointerX, pointerY, w, h, margin int) Rect {
	r := Rect{W: w, H: h}
	if placement == choice.Cursor {
		r.X, r.Y = pointerX+16, pointerY+24
	} else {
		r.X, r.Y = mon.X+(mon.W-w)/2, mon.Y+mon.H-h-margin
	}
	r.X = max(mon.X, min(r.X, mon.X+mon.W-w))
	r.Y = max(mon.Y, min(r.Y, mon.Y+mon.H-h))
	return r
}

// monitorFor returns the monitor that holds point (x, y), else the first one.
func monitorFor(mons []Rect, x, y int) Rect {
	for _, m := range mons {
		if x >= m.X && x < m.X+m.W && y >= m.Y && y < m.Y+m.H {
			return m
		}
	}
	if len(mons) > 0 {
		return mons[0]
	}
	return Rect{W: 1280, H: 800}
}

// backend is what shows the frames: the X11 window, the Wayland layer
// surface, notifications or the Win32 window. The Indicator serialises
// every call.
type backend interface {
	show(v view, relocate bool) // shows v; relocate: place the window anew
	draw(v view)                // repaints while shown
	hide()
	bounds() Rect
	close() error
}

// Indicator is the on-screen status window. Its methods are safe for concurrent use
// and return once the display shows the change.
type Indicator struct {
	cfg Config
	log *slog.Logger
	os  backend

	mu      sync.Mutex
	cur     view
	flash   *time.Timer // hides a NothingHeard or Error
	flashID uint64
	closed  bool
	mic     bool // SetMic's: shown with every state from now on
}

// New creates the (hidden) window. It returns ErrOff for the placement "off", and
// an error wrapping ErrUnavailable where no window can be shown; the app then goes on without one.
func New(cfg Config, log *slog.Logger) (*Indicator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log = log.With("pkg", "indicator")
	var w backend
	w, err = newOSWindow(cfg, log)
	if err != nil {
		return nil, err
	}
	return &Indicator{cfg: cfg, log: log, os: w}, nil
}

// Show shows state; text is the message of an Error, while Recording
// the name of the profile in use (shown beside the level bar), and while
// Transcribing what it waits for ("" says "Transcribing…"). Showing Recording or
// Transcribing places the window anew (the focused window may have moved).
func (i *Indicator) Show(s State, text string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return
	}
	if i.flash != nil {
		i.flash.Stop()
		i.flash = nil
	}
	i.flashID++
	if s == Hidden {
		i.cur = view{}
		i.os.hide()
		return
	}
	relocate := i.cur.state == Hidden || s == Recording
	i.cur = view{state: s, text: text, mic: i.mic}
	i.os.show(i.cur, relocate)
	if s == NothingHeard || s == Error {
		id := i.flashID
		i.flash = time.AfterFunc(i.cfg.FlashFor, func() {
			i.mu.Lock()
			defer i.mu.Unlock()
			if i.closed || i.flashID != id {
				return // a later Show took over
			}
			i.cur = view{}
			i.os.hide()
		})
	}
}

// SetLevel updates the input level bar while recording; level is 0 (silence) to 1 (full scale).
func (i *Indicator) SetLevel(level float32) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed || i.cur.state != Recording {
		return
	}
	i.cur.level = max(0, min(1, level))
	i.os.draw(i.cur)
}

// Live shows text, the words heard so far, beside the level bar while
// recording, in place of the profile's name: as many of the newest whole
// words as fit at the display's font. It does nothing in another state
// (the release has come) and does not move the window.
func (i *Indicator) Live(text string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed || i.cur.state != Recording {
		return
	}
	i.cur.text, i.cur.live = text, true
	i.os.draw(i.cur)
}

// SetMic says whether the microphone is open, for the states shown from
// now on and the one shown now.
func (i *Indicator) SetMic(open bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed || i.mic == open {
		return
	}
	i.mic = open
	if i.cur.state != Hidden {
		i.cur.mic = open
		i.os.draw(i.cur)
	}
}

// Hide hides the window.
func (i *Indicator) Hide() { i.Show(Hidden, "") }

// Bounds is where the window is (or was last) shown. On Wayland the
// compositor places the surface and tells no client where: X and Y are 0
// there, and a notification has no bounds at all.
func (i *Indicator) Bounds() Rect { return i.os.bounds() }

// Close destroys the window and stops its thread. Idempotent.
func (i *Indicator) Close() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return nil
	}
	i.closed = true
	if i.flash != nil {
		i.flash.Stop()
	}
	return i.os.close()
}
