package hotkey

import (
	"context"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// commandQuiet is StopHandsFree's: not a command of the control socket.
const commandQuiet Command = -1

// StopHandsFree ends the recording that runs when no key holds it (toggle
// mode), as its second press would: the stop after silence
// (hotkeys.stop_after_silence). In hold mode, or with no recording, it does
// nothing. It returns once the listener has the request, or when ctx ends
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

// quiet stops a toggled recording: its speech is over.
func (m *machine) quiet() (Event, bool) {
	if !m.recording || m.mode != choice.Toggle {
		return Event{}, false
	}
	m.recording = false
	return Event{Kind: Stop, Hotkey: m.by}, true
}
