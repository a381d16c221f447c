package dictation

import (
	"github.com/whisperkey/whisperkey/internal/app"
	"log/slog"
	"sync"

	"github.com/whisperkey/whisperkey/internal/config"
)

// NewChooser resolves each dictation's settings in flow, with the profile
// of the window focused() names.
func NewChooser(focused func() (config.Window, error), flow *Flow, log *slog.Logger) *Chooser {
	return &Chooser{focused: focused, flow: flow, log: log}
}

// Chooser picks each dictation's profile from the window focused at
// key-down (app.Chooser) and remembers the last one for the tray.
type Chooser struct {
	focused func() (config.Window, error)
	flow    *Flow
	log     *slog.Logger

	mu   sync.Mutex
	last string // the profile chosen last; "" for the defaults
}

// Choose is app.Chooser.
func (t *Chooser) Choose() app.Request {
	w, err := t.focused()
	if err != nil {
		t.log.Debug("no profile: the focused window is unknown", "err", err)
		return t.flow.Request(t.remember(""))
	}
	p, ok := t.flow.Config().Profiles.For(w)
	if !ok {
		t.log.Debug("no profile matches the focused window", "class", w.Class, "exe", w.Exe)
		return t.flow.Request(t.remember(""))
	}
	// The window title is left out: it can hold what the user is writing.
	t.log.Debug("profile chosen", "profile", p.Name, "class", w.Class, "exe", w.Exe)
	return t.flow.Request(t.remember(p.Name))
}

func (t *Chooser) remember(name string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last = name
	return name
}

// Last is the profile chosen for the latest dictation.
func (t *Chooser) Last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}
