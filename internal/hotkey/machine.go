package hotkey

import (
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// source is where a key edge came from.
type source int

const (
	srcRecord source = iota
	srcAutoSend
	srcEdit
	srcTranslate
	srcCancel
	numSources
)

func (s source) hotkey() Hotkey {
	switch s {
	case srcAutoSend:
		return AutoSend
	case srcEdit:
		return Edit
	case srcTranslate:
		return Translate
	}
	return Record
}

// machine turns raw key edges into Start/Stop/Cancel. It is pure: time comes in as an
// argument, so tests drive it with synthetic sequences and the Listener with a timer.
//
// Every press edge counts once: further downs while a key is held (X11 reports one per
// key of the combination, and autorepeat) are ignored. An up only becomes a release if
// no down follows within the debounce (X11 autorepeat sends up+down pairs while held).
type machine struct {
	mode     choice.HotkeyMode
	debounce time.Duration

	held      [numSources]bool
	releaseAt [numSources]time.Time // pending release; zero when none

	recording bool
	by        Hotkey // which hotkey started the recording
}

func newMachine(mode choice.HotkeyMode, debounce time.Duration) *machine {
	return &machine{mode: mode, debounce: debounce}
}

// down handles a press edge (or a repeat of one) at now.
func (m *machine) down(s source, now time.Time) (Event, bool) {
	if s == srcCancel {
		return m.cancel() // repeats are harmless: a second cancel finds nothing to cancel
	}
	m.releaseAt[s] = time.Time{} // a down inside the debounce means the key never went up
	if m.held[s] {
		return Event{}, false
	}
	m.held[s] = true
	switch {
	case !m.recording:
		m.recording, m.by = true, s.hotkey()
		return Event{Kind: Start, Hotkey: m.by}, true
	case m.mode == choice.Toggle:
		m.recording = false
		return Event{Kind: Stop, Hotkey: s.hotkey()}, true
	}
	return Event{}, false // hold mode: another hotkey pressed while one is held
}

// up handles a release edge: it becomes a release at now+debounce unless a down comes first.
func (m *machine) up(s source, now time.Time) {
	if s != srcCancel && m.held[s] && m.releaseAt[s].IsZero() {
		m.releaseAt[s] = now.Add(m.debounce)
	}
}

// release is an up known to be final (the keyboard state says so): it applies at once.
func (m *machine) release(s source, now time.Time) []Event {
	if s == srcCancel || !m.held[s] {
		return nil
	}
	m.releaseAt[s] = now
	return m.tick(now)
}

// tick applies the releases that are due at now.
func (m *machine) tick(now time.Time) []Event {
	var out []Event
	for s := range numSources {
		at := m.releaseAt[s]
		if at.IsZero() || now.Before(at) {
			continue
		}
		m.releaseAt[s] = time.Time{}
		m.held[s] = false
		if m.mode == choice.Hold && m.recording && s.hotkey() == m.by {
			m.recording = false
			out = append(out, Event{Kind: Stop, Hotkey: m.by})
		}
	}
	return out
}

// deadline is the earliest pending release, if any.
func (m *machine) deadline() (time.Time, bool) {
	var first time.Time
	for _, at := range m.releaseAt {
		if !at.IsZero() && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first, !first.IsZero()
}

// cancel discards the current recording, if any. Keys stay held: their release is then silent.
func (m *machine) cancel() (Event, bool) {
	if !m.recording {
		return Event{}, false
	}
	m.recording = false
	return Event{Kind: Cancel, Hotkey: m.by}, true
}

// reset forgets every key (after a re-registration the OS will not report their release)
// and cancels a recording in progress.
func (m *machine) reset() (Event, bool) {
	m.held = [numSources]bool{}
	m.releaseAt = [numSources]time.Time{}
	return m.cancel()
}
