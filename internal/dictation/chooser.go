package dictation

import (
	"log/slog"
	"sync"

	"github.com/whisperkey/whisperkey/internal/config"
)

// NewChooser picks profiles from the window focused() names in the config
// current() returns.
func NewChooser(focused func() (config.Window, error), current func() config.Config, log *slog.Logger) *Chooser {
	return &Chooser{focused: focused, current: current, log: log}
}

// Chooser picks each dictation's profile from the window focused at
// key-down (app.Chooser) and remembers the last one for the tray.
type Chooser struct {
	focused func() (config.Window, error)
	current func() config.Config
	log     *slog.Logger

	mu   sync.Mutex
	last string // the profile chosen last; "" for the defaults
}

// Choose is app.Chooser.
func (t *Chooser) Choose() string {
	w, err := t.focused()
	if err != nil {
		t.log.Debug("no profile: the focused window is unknown", "err", err)
		return t.remember("")
	}
	p, ok := t.current().Profiles.For(w)
	if !ok {
		t.log.Debug("no profile matches the focused window", "class", w.Class, "exe", w.Exe)
		return t.remember("")
	}
	// The window title is left out: it can hold what the user is writing.
	t.log.Debug("profile chosen", "profile", p.Name, "class", w.Class, "exe", w.Exe)
	return t.remember(p.Name)
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
