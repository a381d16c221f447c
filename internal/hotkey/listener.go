package hotkey

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// ErrTaken means another application already owns the combination.
var ErrTaken = errors.New("hotkey already taken by another application")

// Hotkey names which hotkey an event belongs to.
type Hotkey int

const (
	// Record is the dictation hotkey.
	Record Hotkey = iota
	// AutoSend records like Record; a Stop from it means "paste, then press Enter".
	AutoSend
	// PasteAgain and Undo act once per press (Pressed events).
	PasteAgain
	Undo
	// Edit records like Record; its words are an instruction for the
	// selected text.
	Edit
	// Translate records like Record; the words are translated into English.
	Translate
	// Language acts once per press (Pressed): the next of the user's languages.
	Language
)

// String returns "record", "auto-send", "paste-again", "undo", "edit",
// "translate" or "language".
func (h Hotkey) String() string {
	switch h {
	case Translate:
		return "translate"
	case Language:
		return "language"
	case Edit:
		return "edit"
	case AutoSend:
		return "auto-send"
	case PasteAgain:
		return "paste-again"
	case Undo:
		return "undo"
	}
	return "record"
}

// Kind is what happened.
type Kind int

const (
	// Start: begin recording.
	Start Kind = iota + 1
	// Stop: stop recording and deliver the text (press Enter too when Hotkey is AutoSend).
	Stop
	// Cancel: stop recording and discard it.
	Cancel
	// Problem: a hotkey could not be registered; Err says which and what to do. Nothing stopped.
	Problem
	// Renewed: the grabber heard that the session came back (unlock, resume
	// from sleep) and the hotkeys were registered again; Reason says which.
	// The microphone and the engine may need the same check.
	Renewed
	// Pressed: a hotkey that acts at once (PasteAgain, Undo) went down; once
	// per press, whatever the key's autorepeat does.
	Pressed
	// Passed: the hotkey that started the recording was the start of another
	// shortcut (Ctrl+Win+D): a key pressed while it was held went on to the
	// desktop. The recording should end without a word, unless it holds speech.
	Passed
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case Start:
		return "start"
	case Stop:
		return "stop"
	case Cancel:
		return "cancel"
	case Problem:
		return "problem"
	case Renewed:
		return "renewed"
	case Pressed:
		return "pressed"
	case Passed:
		return "passed"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Event is one hotkey event for the app.
type Event struct {
	Kind Kind
	// Hotkey is the hotkey that started (Start, Cancel, Passed) or stopped (Stop) the
	// recording, or that was pressed (Pressed).
	Hotkey Hotkey
	// Err is set for Problem: a *RegisterError, fit to show the user.
	Err error
	// Reason is set for Renewed: why the session came back, for the log.
	Reason string
}

// Config keys named in user messages.
const (
	ConfigRecord     = "hotkeys.record"
	ConfigAutoSend   = "hotkeys.auto_send"
	ConfigCancel     = "hotkeys.cancel"
	ConfigMode       = "hotkeys.mode"
	ConfigPasteAgain = "hotkeys.paste_again"
	ConfigUndo       = "hotkeys.undo"
	ConfigEdit       = "hotkeys.edit"
	ConfigTranslate  = "hotkeys.translate"
	ConfigLanguage   = "hotkeys.language"
)

// Config says which combinations to register and how they behave.
type Config struct {
	// Record starts and stops dictation. Default "ctrl+win".
	Record string
	// AutoSend records like Record and asks for Enter after the paste. Default "" (off); "none" is off too.
	AutoSend string
	// Cancel discards the recording. It is registered only while recording, so it does
	// not take the key from other applications the rest of the time. Default "esc"; "none" turns it off.
	Cancel string
	// PasteAgain and Undo act once per press. Default "" (off); "none" is off too.
	PasteAgain, Undo string
	// Edit records like Record, for an instruction on the selection. Default "" (off); "none" is off too.
	Edit string
	// Translate records like Record, for text translated into English;
	// Language acts once per press. Default "" (off); "none" is off too.
	Translate, Language string
	// Mode is choice.Hold (also ""), choice.Toggle or choice.Auto.
	Mode choice.HotkeyMode
	// Debounce is how long a key-up must stand before it counts as a release: X11
	// autorepeat sends up+down pairs while a key is held. Default 50ms.
	Debounce time.Duration
}

func (c Config) withDefaults() Config {
	if c.Record == "" {
		c.Record = "ctrl+win"
	}
	if c.Cancel == "" {
		c.Cancel = "esc"
	}
	if c.Debounce <= 0 {
		c.Debounce = 50 * time.Millisecond
	}
	return c
}

// settings is a validated Config.
type settings struct {
	record, autoSend, cancel Combo
	pasteAgain, undo, edit   Combo
	translate, language      Combo
	mode                     choice.HotkeyMode
	debounce                 time.Duration
}

func (c Config) parse() (settings, error) {
	c = c.withDefaults()
	var s settings
	var err error
	parseKey := func(key, v string, optional bool) Combo {
		if err != nil || (optional && (strings.TrimSpace(v) == "" || strings.EqualFold(strings.TrimSpace(v), "none"))) {
			return Combo{}
		}
		var cb Combo
		if cb, err = Parse(v); err != nil {
			err = fmt.Errorf("%s: %w", key, err)
		}
		return cb
	}
	s.record = parseKey(ConfigRecord, c.Record, false)
	s.autoSend = parseKey(ConfigAutoSend, c.AutoSend, true)
	s.cancel = parseKey(ConfigCancel, c.Cancel, true)
	s.pasteAgain = parseKey(ConfigPasteAgain, c.PasteAgain, true)
	s.undo = parseKey(ConfigUndo, c.Undo, true)
	s.edit = parseKey(ConfigEdit, c.Edit, true)
	s.translate = parseKey(ConfigTranslate, c.Translate, true)
	s.language = parseKey(ConfigLanguage, c.Language, true)
	if err != nil {
		return settings{}, err
	}
	switch s.mode = c.Mode; {
	case s.mode == "":
		s.mode = choice.Hold
	case !s.mode.Valid():
		return settings{}, fmt.Errorf(`%s: %w mode %q: use %q (record while the hotkey is held), %q (press to start, press again to stop) or %q (hold to talk, tap to start and stop, double-tap to lock)`,
			ConfigMode, ErrInvalid, string(c.Mode), choice.Hold, choice.Toggle, choice.Auto)
	}
	same := func(a, b Combo, ka, kb string) error {
		if !a.IsZero() && a == b {
			return fmt.Errorf("%w: %s and %s are both %s; choose different combinations", ErrInvalid, ka, kb, a)
		}
		return nil
	}
	combos := []Combo{s.record, s.autoSend, s.cancel, s.pasteAgain, s.undo, s.edit, s.translate, s.language}
	keys := []string{ConfigRecord, ConfigAutoSend, ConfigCancel, ConfigPasteAgain, ConfigUndo, ConfigEdit, ConfigTranslate, ConfigLanguage}
	var errs []error
	for i := range combos {
		for j := i + 1; j < len(combos); j++ {
			errs = append(errs, same(combos[i], combos[j], keys[i], keys[j]))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return settings{}, err
	}
	s.debounce = c.Debounce
	return s, nil
}

// Grabber registers combinations with the operating system; package grab implements it
// (Xlib on Linux, a low-level keyboard hook on Windows, golang.design/x/hotkey on macOS).
// It is an interface so this package needs no display.
type Grabber interface {
	// Grab registers c. The error wraps ErrTaken when another application owns c.
	Grab(c Combo) (Grab, error)
}

// Edge is one key event of a registered combination.
type Edge struct {
	Down bool      // true for key down, false for key up
	At   time.Time // when the OS reported it
	// Sure says the grabber knew from the event itself that the combination went down
	// (Down) or stopped being down (!Down). The Listener then takes the edge as is:
	// reading the keyboard when the edge is handled, maybe long after under load,
	// would see a quick tap already released, or a release followed by a new press.
	Sure bool
	// Passed: another key went down while the combination was held, and the
	// grabber let it through to the focused window, so the combination was
	// part of another shortcut. No more edges of this press follow.
	Passed bool
}

// Grab is one registered combination.
type Grab interface {
	// Edges delivers the combination's key downs and ups.
	Edges() <-chan Edge
	// Release unregisters the combination and stops delivering edges.
	Release() error
}

// KeyState is implemented by grabbers that can read the physical keyboard (X11). The
// Listener then ignores downs of combinations that are not really down (X11 reports any
// key pressed on the root window to every grab) and ups of combinations still down
// (autorepeat, or another key released), and spots the cancel key while the record
// hotkey's grab holds the whole keyboard.
type KeyState interface {
	ComboDown(c Combo) (bool, error)
}

// Resumer is implemented by grabbers that hear about session unlock, resume from sleep
// and display changes (Windows) or a keyboard mapping that lost a combination's keys
// (X11); the Listener re-registers its hotkeys on each.
type Resumer interface {
	Resumed() <-chan Renewal
}

// Renewal says why a grabber's hotkeys need registering again.
type Renewal struct {
	Reason string // for the log, e.g. "session unlocked"
	// Session: the user's session came back (unlock, resume from sleep), so the
	// microphone and the engine may need the same check; false for what
	// concerns the keyboard alone (a mapping or display change, a lost hook).
	Session bool
}

// RegisterError says which configured hotkey could not be registered and what to do.
type RegisterError struct {
	Key   string // config key, e.g. "hotkeys.record"
	Combo Combo
	Err   error
}

func (e *RegisterError) Error() string {
	if errors.Is(e.Err, ErrTaken) {
		return fmt.Sprintf("%s is already taken by another application; choose another in config %s", e.Combo, e.Key)
	}
	return fmt.Sprintf("could not register %s (%s): %v; choose another in config %s", e.Combo, e.Key, e.Err, e.Key)
}

func (e *RegisterError) Unwrap() error { return e.Err }

// slot is one registration the Listener holds.
type slot int

const (
	slotRecord slot = iota
	slotAutoSend
	slotCancel
	slotCancelHeld // cancel plus the held hotkey's modifiers: Windows matches modifiers exactly
	slotPasteAgain
	slotUndo
	slotEdit
	slotTranslate
	slotLanguage
	numSlots
)

func (s slot) source() source {
	switch s {
	case slotRecord:
		return srcRecord
	case slotAutoSend:
		return srcAutoSend
	case slotEdit:
		return srcEdit
	case slotTranslate:
		return srcTranslate
	}
	return srcCancel
}

// Listener owns the registered hotkeys and turns their key edges into Events.
type Listener struct {
	set     settings
	log     *slog.Logger
	grabber Grabber
	keys    KeyState       // nil when the grabber cannot read the keyboard
	resumed <-chan Renewal // nil when the grabber does not report resumes

	events chan Event
	rereg  chan chan error
	reconf chan reconfigure
	cmds   chan command
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	err    error // from releasing the grabs, set before done is closed

	// owned by the run goroutine (and by New before it starts)
	m            *machine
	grabs        [numSlots]Grab
	combos       [numSlots]Combo
	cancelWarned bool
	// tapDown: a PasteAgain or Undo press was reported and its release not
	// seen yet, so autorepeat's downs are not new presses.
	tapDown [numSlots]bool
}

// New validates cfg, registers the record and auto-send hotkeys and starts listening.
// It fails only for a bad cfg; a hotkey another application owns is reported as a
// Problem event (and logged) while the others keep working.
func New(cfg Config, log *slog.Logger, g Grabber) (*Listener, error) {
	set, err := cfg.parse()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errors.New("hotkey: no grabber given")
	}
	l := &Listener{
		set:     set,
		log:     log.With("pkg", "hotkey"),
		grabber: g,
		events:  make(chan Event, 16),
		rereg:   make(chan chan error),
		reconf:  make(chan reconfigure),
		cmds:    make(chan command),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		m:       newMachine(set.mode, set.debounce),
	}
	l.keys, _ = g.(KeyState)
	if r, ok := g.(Resumer); ok {
		l.resumed = r.Resumed()
	}
	l.registerMain()
	go l.run()
	return l, nil
}

// Events delivers Start, Stop, Cancel, Problem and Renewed events; it is closed by Close.
func (l *Listener) Events() <-chan Event { return l.events }

// Reregister releases and registers every hotkey again, as needed after the OS dropped
// them (lock/unlock, sleep/resume, display change). A recording in progress is
// cancelled, since its key-up may never arrive. On Windows the grabber triggers this by
// itself; elsewhere the app may call it. It returns the registration problems, if any.
func (l *Listener) Reregister() error {
	reply := make(chan error, 1)
	select {
	case l.rereg <- reply:
		return <-reply
	case <-l.done:
		return errors.New("hotkey: listener closed")
	}
}

// reconfigure asks the run goroutine to take new settings.
type reconfigure struct {
	set   settings
	reply chan error
}

// Reconfigure switches to cfg's combinations and mode. Events stays the same
// channel, so the app keeps listening across changes. An invalid cfg changes
// nothing; a recording in progress is cancelled (its key-up may belong to a
// combination no longer registered). It returns the registration problems,
// which are also sent as Problem events.
func (l *Listener) Reconfigure(cfg Config) error {
	set, err := cfg.parse()
	if err != nil {
		return err
	}
	r := reconfigure{set: set, reply: make(chan error, 1)}
	select {
	case l.reconf <- r:
		return <-r.reply
	case <-l.done:
		return errors.New("hotkey: listener closed")
	}
}

// Close unregisters every hotkey, stops the listener and closes Events. It is idempotent.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.stop) })
	<-l.done
	return l.err
}

func (l *Listener) run() {
	defer close(l.done)
	defer close(l.events)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		var edges [numSlots]<-chan Edge
		for i, g := range l.grabs {
			if g != nil {
				edges[i] = g.Edges()
			}
		}
		select {
		case <-l.stop:
			l.err = l.releaseAll()
			return
		case v, ok := <-edges[slotRecord]:
			l.edge(slotRecord, v, ok)
		case v, ok := <-edges[slotAutoSend]:
			l.edge(slotAutoSend, v, ok)
		case v, ok := <-edges[slotEdit]:
			l.edge(slotEdit, v, ok)
		case v, ok := <-edges[slotTranslate]:
			l.edge(slotTranslate, v, ok)
		case v, ok := <-edges[slotLanguage]:
			l.tap(slotLanguage, Language, v, ok)
		case v, ok := <-edges[slotCancel]:
			l.edge(slotCancel, v, ok)
		case v, ok := <-edges[slotCancelHeld]:
			l.edge(slotCancelHeld, v, ok)
		case v, ok := <-edges[slotPasteAgain]:
			l.tap(slotPasteAgain, PasteAgain, v, ok)
		case v, ok := <-edges[slotUndo]:
			l.tap(slotUndo, Undo, v, ok)
		case now := <-timer.C:
			for _, ev := range l.m.tick(now) {
				l.emit(ev)
			}
		case r := <-l.resumed:
			l.log.Info("re-registering hotkeys", "reason", r.Reason)
			l.reregister()
			if r.Session {
				l.emit(Event{Kind: Renewed, Reason: r.Reason})
			}
		case reply := <-l.rereg:
			l.log.Info("re-registering hotkeys", "reason", "requested")
			reply <- l.reregister()
		case c := <-l.cmds:
			l.command(c.cmd, c.at)
			close(c.done)
		case r := <-l.reconf:
			l.log.Info("re-registering hotkeys", "reason", "new settings")
			if ev, ok := l.m.reset(); ok {
				l.emit(ev)
			}
			l.releaseAll()
			l.set, l.m = r.set, newMachine(r.set.mode, r.set.debounce)
			l.cancelWarned, l.tapDown = false, [numSlots]bool{}
			r.reply <- l.registerMain()
		}
		if at, ok := l.m.deadline(); ok {
			timer.Reset(time.Until(at))
		} else {
			timer.Stop()
		}
	}
}

// Command is a press of the record hotkey that comes from outside the OS
// grab: a compositor's own key binding running `whisperkey ptt` (Wayland,
// where no application may grab keys for itself).
type Command int

const (
	// CommandPress is the record hotkey going down.
	CommandPress Command = iota + 1
	// CommandRelease is the record hotkey coming up.
	CommandRelease
	// CommandToggle starts a recording when none runs and stops the one
	// that runs, in either mode: for bindings that fire once per press.
	CommandToggle
	// CommandCancel discards the recording that runs, as the cancel hotkey
	// does: for a binding of its own, and for the screen locking.
	CommandCancel
)

// String is the command's name on the control socket.
func (c Command) String() string {
	switch c {
	case CommandPress:
		return "press"
	case CommandRelease:
		return "release"
	case CommandToggle:
		return "toggle"
	case CommandCancel:
		return "cancel"
	}
	return fmt.Sprintf("command(%d)", int(c))
}

// ParseCommand reads "press", "release", "toggle" or "cancel".
func ParseCommand(s string) (Command, error) {
	for _, c := range []Command{CommandPress, CommandRelease, CommandToggle, CommandCancel} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, commandError(s)
}

// commandError is an unknown command: ErrInvalid, in the words `whisperkey
// ptt` shows as they are.
type commandError string

func (e commandError) Error() string {
	return fmt.Sprintf(`unknown command %q: use "press", "release", "toggle" or "cancel"`, string(e))
}

func (commandError) Unwrap() error { return ErrInvalid }

type command struct {
	cmd  Command
	at   time.Time
	done chan struct{}
}

// Command feeds c to the record hotkey as sure key edges, so it takes the
// very path of a key the OS reported: the same machine, hold or toggle
// mode, the cancel key registered while recording. It returns once the
// edge is applied.
func (l *Listener) Command(c Command) error {
	if c < CommandPress || c > CommandCancel {
		return fmt.Errorf("%w command %d", ErrInvalid, int(c))
	}
	cmd := command{cmd: c, at: time.Now(), done: make(chan struct{})}
	select {
	case l.cmds <- cmd:
	case <-l.done:
		return errors.New("hotkey: listener closed")
	}
	select {
	case <-cmd.done:
		return nil
	case <-l.done:
		return errors.New("hotkey: listener closed")
	}
}

// command applies c at the time it was asked for.
func (l *Listener) command(c Command, at time.Time) {
	press := func() { l.edge(slotRecord, Edge{Down: true, At: at, Sure: true}, true) }
	release := func() { l.edge(slotRecord, Edge{Down: false, At: at, Sure: true}, true) }
	switch c {
	case CommandPress:
		press()
	case CommandRelease:
		release()
	case CommandToggle:
		switch {
		case !l.m.recording:
			press()
			if l.set.mode != choice.Hold {
				release() // a tap: toggle mode starts on the down alone, auto mode latches on a tap
			}
		case l.set.mode == choice.Auto:
			// A toggle means stop, however short a hold and however soon after a tap.
			if ev, ok := l.m.stop(); ok {
				l.emit(ev)
			}
		case l.set.mode == choice.Hold && l.m.held[srcRecord]:
			release()
		case l.set.mode == choice.Hold:
			// Started by another hotkey (auto-send) that is still held:
			// a toggle means stop, so release that one.
			for _, ev := range l.m.release(srcAutoSend, at) {
				l.emit(ev)
			}
		default:
			press()
			release()
		}
	case CommandCancel:
		if ev, ok := l.m.cancel(); ok {
			l.emit(ev)
		}
	case commandQuiet:
		if ev, ok := l.m.quiet(); ok {
			l.emit(ev)
		}
	}
}

// edge feeds one key edge from slot s into the machine.
func (l *Listener) edge(s slot, e Edge, ok bool) {
	if !ok {
		l.log.Warn("hotkey registration ended unexpectedly", "hotkey", l.combos[s].String())
		l.grabs[s] = nil
		return
	}
	// Releases due by the time of this edge happened before it, whether or not the timer has fired yet.
	for _, ev := range l.m.tick(e.At) {
		l.emit(ev)
	}
	src, combo, now := s.source(), l.combos[s], e.At
	if e.Passed {
		if ev, ok := l.m.interrupt(src); ok {
			l.log.Info("the hotkey was part of another shortcut; its key went on to the desktop", "hotkey", combo.String())
			l.emit(ev)
		}
		return
	}
	if e.Sure {
		if !e.Down {
			for _, ev := range l.m.release(src, now) {
				l.emit(ev)
			}
		} else if ev, ok := l.m.down(src, now); ok {
			l.emit(ev)
		}
		return
	}
	if !e.Down {
		if src == srcCancel {
			return
		}
		switch l.comboDown(combo) {
		case yes:
			return // autorepeat, or some other key went up
		case no:
			// The keyboard says it is up: no need to wait out the debounce.
			for _, ev := range l.m.release(src, now) {
				l.emit(ev)
			}
		default:
			l.m.up(src, now)
		}
		return
	}
	if src != srcCancel && l.m.held[src] {
		// While the record hotkey is held, X11 routes every key to its grab: look for the cancel key.
		if l.m.recording && !l.set.cancel.IsZero() && l.comboDown(l.set.cancel) == yes {
			if ev, ok := l.m.cancel(); ok {
				l.emit(ev)
			}
			return
		}
	} else if !e.Sure && l.comboDown(combo) == no {
		l.log.Debug("ignored key press that is not the hotkey", "hotkey", combo.String())
		return
	}
	if ev, ok := l.m.down(src, now); ok {
		l.emit(ev)
	}
}

// tap turns an edge of a hotkey that acts at once into one Pressed event
// per press. Autorepeat (X11 sends up and down pairs while a key is held)
// is told from a new press by the keyboard's state where it can be read.
func (l *Listener) tap(s slot, h Hotkey, e Edge, ok bool) {
	if !ok {
		l.log.Warn("hotkey registration ended unexpectedly", "hotkey", l.combos[s].String())
		l.grabs[s] = nil
		return
	}
	if !e.Down || e.Passed { // after a pass the release goes to the desktop, not here
		if e.Passed || e.Sure || l.comboDown(l.combos[s]) != yes {
			l.tapDown[s] = false
		}
		return
	}
	if l.tapDown[s] || (!e.Sure && l.comboDown(l.combos[s]) == no) {
		return
	}
	l.tapDown[s] = true
	l.emit(Event{Kind: Pressed, Hotkey: h})
}

type tri int

const (
	unknown tri = iota
	yes
	no
)

func (l *Listener) comboDown(c Combo) tri {
	if l.keys == nil {
		return unknown
	}
	down, err := l.keys.ComboDown(c)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		l.keys = nil // this OS cannot tell; stop asking
		return unknown
	case err != nil:
		l.log.Debug("cannot read keyboard state", "err", err)
		return unknown
	case down:
		return yes
	}
	return no
}

// emit applies an event's side effects on the cancel registration and hands it to the app.
func (l *Listener) emit(ev Event) {
	var problem error
	switch ev.Kind {
	case Start:
		problem = l.grabCancel(ev.Hotkey) // before the app hears Start, so Esc works at once
	case Stop, Cancel, Passed:
		l.releaseSlot(slotCancel)
		l.releaseSlot(slotCancelHeld)
	}
	l.log.Debug("hotkey event", "kind", ev.Kind.String(), "hotkey", ev.Hotkey.String())
	select {
	case l.events <- ev:
	case <-l.stop:
	}
	if problem != nil {
		l.problem(problem)
	}
}

func (l *Listener) problem(err error) {
	l.log.Warn("hotkey not registered", "err", err)
	select {
	case l.events <- Event{Kind: Problem, Err: err}:
	case <-l.stop:
	}
}

// registerMain registers the record, auto-send, paste-again, undo and edit hotkeys.
func (l *Listener) registerMain() error {
	var errs []error
	for _, r := range []struct {
		s     slot
		key   string
		combo Combo
	}{{slotRecord, ConfigRecord, l.set.record}, {slotAutoSend, ConfigAutoSend, l.set.autoSend},
		{slotPasteAgain, ConfigPasteAgain, l.set.pasteAgain}, {slotUndo, ConfigUndo, l.set.undo},
		{slotEdit, ConfigEdit, l.set.edit}, {slotTranslate, ConfigTranslate, l.set.translate},
		{slotLanguage, ConfigLanguage, l.set.language}} {
		if r.combo.IsZero() {
			continue
		}
		if err := l.grab(r.s, r.combo); err != nil {
			rerr := &RegisterError{Key: r.key, Combo: r.combo, Err: err}
			l.problem(rerr)
			errs = append(errs, rerr)
			continue
		}
		l.log.Info("hotkey registered", "hotkey", r.combo.String(), "config", r.key, "mode", string(l.set.mode))
	}
	return errors.Join(errs...)
}

// grabCancel registers the cancel key for the recording that started. It returns a
// problem to report, once per registration round.
func (l *Listener) grabCancel(started Hotkey) error {
	c := l.set.cancel
	if c.IsZero() {
		return nil
	}
	var problem error
	if err := l.grab(slotCancel, c); err != nil && !l.cancelWarned {
		l.cancelWarned = true
		problem = &RegisterError{Key: ConfigCancel, Combo: c, Err: err}
	}
	if l.set.mode == choice.Toggle || c.Key == 0 {
		return problem
	}
	// Held hotkey's modifiers are still down when the user presses cancel; Windows
	// only fires a hotkey whose modifiers match exactly. Best effort.
	held := l.set.record
	switch started {
	case AutoSend:
		held = l.set.autoSend
	case Edit:
		held = l.set.edit
	case Translate:
		held = l.set.translate
	}
	if v := (Combo{Mods: c.Mods | held.Mods, Key: c.Key}); v != c {
		if err := l.grab(slotCancelHeld, v); err != nil {
			l.log.Debug("cancel variant not registered", "hotkey", v.String(), "err", err)
		}
	}
	return problem
}

func (l *Listener) grab(s slot, c Combo) error {
	l.releaseSlot(s)
	g, err := l.grabber.Grab(c)
	if err != nil {
		return err
	}
	l.grabs[s], l.combos[s] = g, c
	return nil
}

func (l *Listener) releaseSlot(s slot) error {
	g := l.grabs[s]
	if g == nil {
		return nil
	}
	l.grabs[s] = nil
	if err := g.Release(); err != nil {
		l.log.Warn("hotkey release failed", "hotkey", l.combos[s].String(), "err", err)
		return fmt.Errorf("release %s: %w", l.combos[s], err)
	}
	return nil
}

func (l *Listener) releaseAll() error {
	var errs []error
	for s := range numSlots {
		errs = append(errs, l.releaseSlot(s))
	}
	return errors.Join(errs...)
}

func (l *Listener) reregister() error {
	if ev, ok := l.m.reset(); ok {
		l.emit(ev)
	}
	l.releaseAll()
	l.cancelWarned = false
	l.tapDown = [numSlots]bool{}
	return l.registerMain()
}
