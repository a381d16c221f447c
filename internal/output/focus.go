package output

import (
	"errors"

	"github.com/whisperkey/whisperkey/internal/config"
)

// Window is what can be told of a window: enough to choose settings for it.
// It is the config's, which the profiles match, so the focused window goes
// to them as it is.
type Window = config.Window

// errNoWindow means the focused window cannot be told on this system.
var errNoWindow = errors.New("the focused window cannot be identified here")

// Focused describes the window that has the keyboard focus now: the one a
// dictation started now will go to.
func (p *Paster) Focused() (Window, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return Window{}, errors.New("output: paster closed")
	}
	target, _, err := p.os.target()
	if err != nil {
		return Window{}, err
	}
	return p.os.describe(target)
}
