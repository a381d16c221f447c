package hotkey

import (
	"context"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// commandQuiet is StopHandsFree's: not a command of the control socket.
const commandQuiet Command = -1

// StopHandsFree ends the recording that runs when no key holds it (toggle
// mode, or auto mode after a tap), as its next press would: the stop after
// silence (hotkeys.stop_after_silence). In hold mode, while the key holds
// the recording, or with no recording, it does nothing. It returns once the listener has the request, or when ctx ends
// (the recording was stopped meanwhile), never waiting on what reads the
// events.
func (l *Listener) StopHandsFree(ctx context.Context) {
	cmd := command{cmd: commandQuiet, at: time.Now(), done: make(chan struct{})}
	select {
	case l.cmds <- cmd:
	case <-l.done:
	case <-ctx.Done():
	}
}

// quiet stops a recording that no key holds, toggle mode's or auto mode's
// after a tap (latched, or locked by a double tap): its speech is over. A
// recording the key still holds goes on until the release.
func (m *machine) quiet() (Event, bool) {
	if !m.recording || (m.mode != choice.Toggle && !(m.mode == choice.Auto && m.latched)) {
		return Event{}, false
	}
	m.recording, m.latched, m.locked = false, false, false
	return Event{Kind: Stop, Hotkey: m.by}, true
}
