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

// In auto mode a press that comes up within tapMax was a tap, not a hold: the
// recording goes on after it, and the next press ends it. A second tap that goes
// down within lockGap of the first one's release locks the recording on instead
// of ending it, so a double tap (the habit for "hands free") never records nothing.
//
// tapMax: a deliberate tap of a chord is about 100-200 ms down (keystroke dwell
// times run 70-200 ms), and a hold with a word in it lasts more than 400 ms, so
// 300 ms splits them; a hold that short holds no speech anyway (audio.min_duration
// drops it in hold mode too). lockGap is about a double click's interval.
const (
	tapMax  = 300 * time.Millisecond
	lockGap = 400 * time.Millisecond
)

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
	downAt    [numSources]time.Time // of the press now held
	upAt      [numSources]time.Time // of the pending release's key-up

	recording bool
	by        Hotkey // which hotkey started the recording
	// Auto mode: latched says the starting press was a tap, so the recording
	// goes on without the key; tappedAt is that tap's release, locked says a
	// second tap locked it on.
	latched  bool
	tappedAt time.Time
	locked   bool
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
	m.held[s], m.downAt[s] = true, now
	switch {
	case !m.recording:
		m.recording, m.by = true, s.hotkey()
		m.latched, m.locked = false, false
		return Event{Kind: Start, Hotkey: m.by}, true
	case m.mode == choice.Toggle:
		m.recording = false
		return Event{Kind: Stop, Hotkey: s.hotkey()}, true
	case m.mode == choice.Auto && m.latched && !m.locked && now.Sub(m.tappedAt) < lockGap:
		m.locked = true // a double tap: keep recording; this press's release changes nothing
		return Event{}, false
	case m.mode == choice.Auto && m.latched:
		m.recording = false
		return Event{Kind: Stop, Hotkey: s.hotkey()}, true
	}
	return Event{}, false // hold: another hotkey pressed while one is held
}

// up handles a release edge: it becomes a release at now+debounce unless a down comes first.
func (m *machine) up(s source, now time.Time) {
	if s != srcCancel && m.held[s] && m.releaseAt[s].IsZero() {
		m.releaseAt[s], m.upAt[s] = now.Add(m.debounce), now
	}
}

// release is an up known to be final (the keyboard state says so): it applies at once.
func (m *machine) release(s source, now time.Time) []Event {
	if s == srcCancel || !m.held[s] {
		return nil
	}
	m.releaseAt[s], m.upAt[s] = now, now
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
		if m.mode == choice.Toggle || !m.recording || s.hotkey() != m.by || m.latched {
			continue
		}
		if up := m.upAt[s]; m.mode == choice.Auto && up.Sub(m.downAt[s]) < tapMax {
			m.latched, m.tappedAt = true, up // a tap: record on until the next press
			continue
		}
		m.recording = false
		out = append(out, Event{Kind: Stop, Hotkey: m.by})
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
	m.recording, m.latched, m.locked = false, false, false
	return Event{Kind: Cancel, Hotkey: m.by}, true
}

// interrupt handles a key of another shortcut pressed while s was held: the
// press is over (its release will not be reported), and a recording it holds
// ends as Passed.
func (m *machine) interrupt(s source) (Event, bool) {
	if s == srcCancel || !m.held[s] {
		return Event{}, false
	}
	m.held[s], m.releaseAt[s] = false, time.Time{}
	if !m.recording || s.hotkey() != m.by || m.latched {
		return Event{}, false
	}
	m.recording = false
	return Event{Kind: Passed, Hotkey: m.by}, true
}

// stop ends the recording at once, whatever the keys are doing: for a
// toggle command that means "stop" while a key is still held.
func (m *machine) stop() (Event, bool) {
	if !m.recording {
		return Event{}, false
	}
	m.recording, m.latched, m.locked = false, false, false
	return Event{Kind: Stop, Hotkey: m.by}, true
}

// reset forgets every key (after a re-registration the OS will not report their release)
// and cancels a recording in progress.
func (m *machine) reset() (Event, bool) {
	m.held = [numSources]bool{}
	m.releaseAt = [numSources]time.Time{}
	return m.cancel()
}
