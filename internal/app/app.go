package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Recorder captures the microphone.
type Recorder interface {
	Start() error
	// Stop returns what was recorded; samples may come with an error (a
	// microphone lost mid-way) and are still used.
	Stop() ([]float32, error)
	Cancel()
}

// Transcriber turns 16 kHz samples into text.
type Transcriber interface {
	Transcribe(ctx context.Context, req Request, samples []float32) (Transcript, error)
}

// Speculator transcribes a dictation while its key is still held
// (dictation.Ahead), so the text can be ready at the release.
type Speculator interface {
	// Follow starts following the recording that has just begun, with
	// its settings req. nil: not this one.
	Follow(ctx context.Context, req Request) Speculation
}

// Speculation is one hold's early transcription.
type Speculation interface {
	// Finish returns the transcript of samples, the release's recording:
	// the hold's own when it made it already (Transcript.Early), otherwise
	// one made now with what the hold learned of the recording.
	Finish(ctx context.Context, samples []float32) (Transcript, error)
	// Drop discards it (a cancelled or failed recording).
	Drop()
}

// Silence ends hands-free recordings once their speech is over
// (hotkeys.stop_after_silence; dictation.Flow's Hush): it asks the hotkeys
// for the stop, so the recording ends as a second press would end it.
type Silence interface {
	// Follow starts watching the recording that has just begun, with its
	// settings req; stop ends the watching and waits for it.
	Follow(ctx context.Context, req Request) (stop func())
}

// Transcript is a transcriber's answer and where its time went.
type Transcript struct {
	Text     string
	Features time.Duration
	Engine   time.Duration
	// Raw is the text as heard when an AI cleanup rewrote it into Text ("" otherwise).
	Raw string
	// Cleanup is the cleanup mode used ("" for none); Notice says why its
	// answer was not used ("" when it was, or none was asked for).
	Cleanup, Notice string
	// Cleaning is how long the cleanup took.
	Cleaning time.Duration
	// Early: the text was transcribed while the key was held. Wasted is
	// the engine time spent on early transcriptions of the hold that were
	// not used (speech went on after them).
	Early  bool
	Wasted time.Duration
	// Reused counts the 30-s windows of a long recording that an early
	// transcription decoded during the hold and this one did not decode again.
	Reused int
	// Forced counts the tokens forced from the hold's earlier
	// transcriptions (decoding.early_prefix), not generated again.
	Forced int
	// Language is the language code the text was transcribed in ("en").
	Language string
	// Send: the words ended with a spoken send phrase, removed from Text;
	// the Paster presses Enter after it, as for the auto-send hotkey.
	Send bool
	// Command is the spoken command the model's own check found said,
	// whatever Text spells (NoCommand: none, or no check was made).
	Command Command
}

// Request is one dictation's settings, resolved once when its key goes
// down (dictation.Request): the config in use then, the focused window's
// profile and the engine. The Chooser makes it, and the app hands it with
// the recording to the Speculator, the Transcriber, the Paster and the
// Rewriter; it reads only the profile's name, for its events and log.
type Request interface {
	Profile() string // "" for the defaults
}

// Chooser resolves a dictation's settings when its key goes down, from the
// focused window's profile. It must be quick.
type Chooser interface {
	Choose() Request
}

// Translatable is a Request that can go through Whisper's translate task
// into English (the translate hotkey), or says why its model cannot.
type Translatable interface {
	Translated() (Request, error)
}

// Labelled is a Request that names its language for the indicator while
// recording ("de", "→ en"); "" says nothing.
type Labelled interface {
	Label() string
}

// noProfile is the Request of an app with no Chooser.
type noProfile struct{}

func (noProfile) Profile() string { return "" }

// Paster puts text at the cursor and says when the text went out (zero
// when it was only put on the clipboard).
type Paster interface {
	Output(ctx context.Context, req Request, text string, pressEnter bool) (pastedAt time.Time, err error)
}

// Editor takes the last text the Paster delivered back out of its window
// (output.Paster). When it cannot be sure the text is still there as
// delivered it changes nothing, and the error says why, fit for the user.
type Editor interface {
	Undo(ctx context.Context) error
}

// Rewriter changes the selected text as a spoken instruction asks (the
// wiring's: it reads the selection, asks the chat server, pastes the answer
// over it). On any problem it leaves the window as it was and the error says
// why, fit for the user. answer is the rewrite whenever one came, even with
// an error (the focus moved away meanwhile), so that Paste again can put it in.
type Rewriter interface {
	Rewrite(ctx context.Context, req Request, instruction string) (answer string, err error)
}

// Command is a spoken command: what a whole utterance may ask for instead of
// being typed.
type Command int

// The spoken commands.
const (
	NoCommand Command = iota
	CommandUndo
)

// Commands recognises spoken commands (the config's commands, adapted by
// the wiring). It must be quick.
type Commands interface {
	// Command is what text, a whole transcript, asks for; NoCommand when it
	// is text to type.
	Command(text string) Command
}

// Sounds plays the short cues; nil plays nothing.
type Sounds interface {
	Play(name string)
}

// Trigger is what the hotkeys ask for.
type Trigger int

// Triggers from the hotkey package, translated by the wiring.
const (
	TriggerStart Trigger = iota
	TriggerStop
	TriggerCancel
	// TriggerPasteAgain pastes the last dictation again, into the window
	// focused now; TriggerUndo takes it back out of its window.
	TriggerPasteAgain
	TriggerUndo
	// TriggerPassed: the hotkey was the start of another shortcut (its key
	// went on to the desktop). A recording with no speech in it ends without a
	// word or a sound; one that holds speech is transcribed as at a stop.
	TriggerPassed
)

// Input is one hotkey event.
type Input struct {
	Trigger Trigger
	// Send means the auto-send hotkey: paste, then press Enter.
	Send bool
	// Edit, on a start, means the edit hotkey: the words are an instruction
	// for the selected text (Deps.Rewriter), not text to type.
	Edit bool
	// Translate, on a start, means the translate hotkey: the words come out
	// in English (Translatable), or the press is refused with the reason.
	Translate bool
	// At is when the key moved; zero means when the Input arrives. A start's
	// and a stop's together say how long the key was held.
	At time.Time
}

// State is where the dictation is.
type State int

// The dictation states the tray shows.
const (
	Idle State = iota
	Recording
	Transcribing
	Output
	Error
)

func (s State) String() string {
	return [...]string{"idle", "recording", "transcribing", "output", "error"}[s]
}

// Event reports a state change or a finished dictation to the tray and log.
type Event struct {
	State   State
	Message string
	Text    string
	Err     error
	// Outcome is how a dictation ended, on its last event (zero before).
	Outcome Outcome
	// Timings of a finished dictation (zero otherwise).
	Timings Timings
	// Profile is the dictation's profile ("" for the defaults), from
	// Recording on; Raw, Cleanup and Notice come from its Transcript.
	Profile              string
	Raw, Cleanup, Notice string
	// Language is the dictation's language code, from its Transcript; on
	// Recording, the language asked for as the indicator shows it (Labelled).
	Language string
	// Action is what the event's work was: a dictation, or a command on the
	// last one (PasteAgain, Undo), asked by a hotkey, the tray or the voice.
	Action Action
	// Audio is the recording, on a dictation's last event once it was
	// transcribed and on a cancel (Config.KeepCancelled); nil otherwise. The
	// slice is the event's to keep: the app no longer touches it.
	Audio []float32
}

// Action is the kind of work an Event reports.
type Action int

// Actions: a dictation is the zero value.
const (
	Dictate Action = iota
	PasteAgain
	Undo
	// Edit: the selection rewritten as the spoken instruction asked.
	Edit
)

// Outcome is how a dictation ended, for the parts that show it.
type Outcome int

const (
	// Pending: the event does not end a dictation.
	Pending Outcome = iota
	// Delivered: the text was pasted, typed or left on the clipboard.
	Delivered
	// NothingHeard: the recording held no words.
	NothingHeard
	// Undone: the last dictation was taken back out of its window.
	Undone
	// Refused: a command was not carried out and the target was left as it
	// was; Message (and Err, for Undo) says why.
	Refused
	// Cancelled: the recording was cancelled (hotkeys.cancel) before the
	// release; Audio holds it when Config.KeepCancelled.
	Cancelled
)

// Timings split a dictation's latency after the key was released.
type Timings struct {
	Audio       time.Duration // length of the recording
	CaptureStop time.Duration // from release to samples in hand
	Features    time.Duration
	Engine      time.Duration
	// Paste is from handing over the text to the paste keystroke.
	Paste time.Duration
	// Cleanup is the AI cleanup's share of the time (zero without one).
	Cleanup time.Duration
	// ReleaseToPaste is from the key release to the paste keystroke: when
	// the text appears (the clipboard is restored after that).
	ReleaseToPaste time.Duration
	// Early: the text was ready at the release (Transcript.Early); Wasted,
	// Reused and Forced are Transcript's.
	Early  bool
	Wasted time.Duration
	Reused int
	Forced int
}

// Config are the app's own settings.
type Config struct {
	// MinDuration: shorter recordings are dropped without calling the engine; default 300 ms.
	MinDuration time.Duration
	// Sounds plays start/stop/done cues.
	Sounds bool
	// KeepCancelled stops a cancelled recording instead of discarding it,
	// so its Cancelled event carries the audio (history.keep_audio_days:
	// Recent offers to retry it).
	KeepCancelled bool
}

func (c Config) withDefaults() Config {
	if c.MinDuration == 0 {
		c.MinDuration = 300 * time.Millisecond
	}
	return c
}

// Deps are the parts the app drives.
type Deps struct {
	Recorder    Recorder
	Transcriber Transcriber
	Paster      Paster
	Sounds      Sounds
	// Chooser, when set, picks each dictation's profile at key-down.
	Chooser Chooser
	// Speculator, when set, transcribes during holds that begin while no
	// earlier dictation is in the engine (that one goes first).
	Speculator Speculator
	// Editor, when set, carries out Undo (the hotkey and the spoken command).
	Editor Editor
	// Commands, when set, recognises the spoken commands.
	Commands Commands
	// Rewriter, when set, carries out the edit hotkey's instructions.
	Rewriter Rewriter
	// Silence, when set, follows each recording for the stop after silence.
	Silence Silence
}

// App is the dictation state machine: idle → recording → transcribing →
// output → idle. Recordings made while an earlier one is still being
// transcribed wait in a queue, so dictations never overlap or reorder.
type App struct {
	cfg  atomic.Pointer[Config] // swapped whole by Reconfigure
	deps Deps
	log  *slog.Logger

	events chan Event
	jobs   chan job
	mu     sync.Mutex // guards state: Run and the transcriber write it, State reads it
	state  State
	// last is the last dictation's text, for PasteAgain; only the
	// transcription goroutine touches it.
	last string
}

type job struct {
	action   Action      // Dictate, Edit (an instruction), or a command on the last dictation (no samples)
	req      Request     // never nil
	early    Speculation // nil: none
	samples  []float32
	send     bool
	released time.Time
	stopTook time.Duration
	quiet    bool // ended by another shortcut: nothing heard is said by nothing at all
}

// choose is the Request of a dictation starting now.
func (a *App) choose() Request {
	if a.deps.Chooser == nil {
		return noProfile{}
	}
	return a.deps.Chooser.Choose()
}

// New makes an app; Run drives it.
func New(cfg Config, deps Deps, log *slog.Logger) *App {
	a := &App{
		deps: deps, log: log.With("pkg", "app"),
		events: make(chan Event, 64), jobs: make(chan job, 16),
	}
	a.Reconfigure(cfg)
	return a
}

// Reconfigure changes the app's settings; the next recording uses them.
// It is safe to call while Run runs.
func (a *App) Reconfigure(cfg Config) {
	cfg = cfg.withDefaults()
	a.cfg.Store(&cfg)
}

// Events delivers state changes; it is closed when Run returns.
func (a *App) Events() <-chan Event { return a.events }

// State is the current state.
func (a *App) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state
}

// Run handles hotkey input until ctx ends or input closes. It owns the
// transcription goroutine and waits for it before returning.
func (a *App) Run(ctx context.Context, input <-chan Input) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a.transcribeLoop(ctx)
	}()
	defer func() {
		close(a.jobs)
		wg.Wait()
		close(a.events)
	}()
	recording := false
	var send, edit bool
	var req Request = noProfile{}
	var pressed time.Time // the start's Input.At; zero when not given
	var early Speculation
	hush := func() {} // ends the Silence's watch of the recording
	endWatch := func() { hush(); hush = func() {} }
	drop := func() {
		if early != nil {
			early.Drop()
			early = nil
		}
	}
	defer drop()
	defer endWatch()
	for {
		select {
		case <-ctx.Done():
			if recording {
				a.deps.Recorder.Cancel()
			}
			return ctx.Err()
		case in, ok := <-input:
			if !ok {
				return nil
			}
			switch in.Trigger {
			case TriggerStart:
				if recording {
					continue
				}
				req = a.choose() // before anything else can take the focus
				if in.Translate {
					var err error
					if req, err = translated(req); err != nil {
						a.emit(Event{State: Error, Err: err, Message: "Cannot translate: " + err.Error()})
						continue
					}
				}
				if err := a.deps.Recorder.Start(); err != nil {
					a.emit(Event{State: Error, Err: err, Message: "Could not start recording: " + err.Error()})
					continue
				}
				recording, send, edit, pressed = true, in.Send, in.Edit, in.At
				if a.deps.Speculator != nil && a.idleOrBusy() == Idle {
					early = a.deps.Speculator.Follow(ctx, req)
				}
				if a.deps.Silence != nil {
					hush = a.deps.Silence.Follow(ctx, req)
				}
				a.play("start")
				a.mu.Lock()
				a.state = Recording
				a.mu.Unlock()
				a.send(Event{State: Recording, Message: "Listening…", Profile: req.Profile(), Language: label(req)})
			case TriggerStop, TriggerPassed:
				if !recording {
					continue
				}
				recording = false
				endWatch()
				quiet := in.Trigger == TriggerPassed
				released := in.At
				if released.IsZero() {
					released = time.Now()
				}
				samples, err := a.deps.Recorder.Stop()
				stopTook := time.Since(released)
				if quiet && (len(samples) == 0 || held(samples, pressed, in.At) < a.cfg.Load().MinDuration) {
					drop()
					a.log.Info("recording ended by another shortcut before any speech", "err", err)
					a.setState(a.idleOrBusy(), "")
					continue
				}
				if !quiet {
					a.play("stop")
				}
				if err != nil && len(samples) == 0 {
					drop()
					a.emit(Event{State: Error, Err: err, Message: "Recording failed: " + err.Error()})
					continue
				}
				if err != nil {
					a.log.Warn("recording ended early; using what was captured", "err", err)
				}
				if d, min := held(samples, pressed, in.At), a.cfg.Load().MinDuration; d < min {
					drop()
					a.log.Info("recording too short; dropped", "duration", d, "min", min)
					a.setState(a.idleOrBusy(), fmt.Sprintf("Too short (%.1f s) — hold the key while you speak", d.Seconds()))
					continue
				}
				if quiet {
					a.mu.Lock()
					a.state = Transcribing // shown only if speech comes out of it
					a.mu.Unlock()
				} else {
					a.setState(Transcribing, "Transcribing…")
				}
				j := job{req: req, early: early, samples: samples, send: send || in.Send, released: released, stopTook: stopTook, quiet: quiet}
				if edit {
					j.action, j.send = Edit, false
				}
				select {
				case a.jobs <- j:
					early = nil // the job owns it
				case <-ctx.Done():
					return ctx.Err()
				}
			case TriggerPasteAgain, TriggerUndo:
				if recording {
					continue // the key that ends the recording comes first
				}
				j := job{action: Undo, req: noProfile{}}
				if in.Trigger == TriggerPasteAgain {
					j.action, j.req = PasteAgain, a.choose() // the window it goes to
				}
				// Behind the dictations still in the engine: they paste first,
				// so the command acts on the last one.
				select {
				case a.jobs <- j:
				case <-ctx.Done():
					return ctx.Err()
				}
			case TriggerCancel:
				if !recording {
					continue
				}
				recording = false
				endWatch()
				var kept []float32
				if a.cfg.Load().KeepCancelled {
					kept, _ = a.deps.Recorder.Stop() // what it caught is kept even when the device failed
				} else {
					a.deps.Recorder.Cancel()
				}
				drop()
				st := a.idleOrBusy()
				a.mu.Lock()
				a.state = st
				a.mu.Unlock()
				a.send(Event{State: st, Message: "Cancelled", Outcome: Cancelled, Audio: kept, Profile: req.Profile()})
			}
		}
	}
}

// translated is req through the translate task, or why it cannot be.
func translated(req Request) (Request, error) {
	t, ok := req.(Translatable)
	if !ok {
		return nil, errors.New("translation is not available here")
	}
	return t.Translated()
}

// label is req's language for the indicator, "" when it names none.
func label(req Request) string {
	if l, ok := req.(Labelled); ok {
		return l.Label()
	}
	return ""
}

// held is how long a recording was asked for: the key's time down when
// both Inputs carry their time, never more than the audio. The samples alone
// would let every tap through, since a pre-roll (audio.pre_roll, when on)
// puts half a second in front of it.
func held(samples []float32, pressed, released time.Time) time.Duration {
	d := time.Duration(len(samples)) * time.Second / 16000
	if !pressed.IsZero() && !released.IsZero() {
		d = min(d, released.Sub(pressed))
	}
	return d
}

// idleOrBusy is the state to show after a recording ends without a job of
// its own: Transcribing while earlier dictations are queued or running.
func (a *App) idleOrBusy() State {
	if len(a.jobs) > 0 || a.State() == Transcribing || a.State() == Output {
		return Transcribing
	}
	return Idle
}

func (a *App) transcribeLoop(ctx context.Context) {
	for j := range a.jobs {
		switch j.action {
		case PasteAgain:
			a.pasteAgain(ctx, j.req)
		case Undo:
			a.undo(ctx)
		default:
			a.finish(ctx, j)
		}
	}
}

// pasteAgain pastes the last dictation into the window focused now, through
// the Paster as any dictation.
func (a *App) pasteAgain(ctx context.Context, req Request) {
	if a.last == "" {
		a.done(Event{Action: PasteAgain, Outcome: Refused, Message: "Nothing to paste again: no dictation yet"})
		return
	}
	a.setState(Output, "Pasting again…")
	if _, err := a.deps.Paster.Output(ctx, req, a.last, false); err != nil {
		a.emit(Event{State: Error, Action: PasteAgain, Err: err, Text: a.last, Message: err.Error()})
		return
	}
	a.log.Info("pasted again", "chars", len(a.last), "profile", req.Profile())
	a.done(Event{Action: PasteAgain, Outcome: Delivered, Message: "Pasted again"})
}

// undo takes the last dictation back out of its window, if the Editor can
// be sure it is still there.
func (a *App) undo(ctx context.Context) {
	if a.deps.Editor == nil {
		a.done(Event{Action: Undo, Outcome: Refused, Message: "Undo is not available here"})
		return
	}
	a.setState(Output, "Undoing…")
	if err := a.deps.Editor.Undo(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			return
		}
		a.log.Info("dictation not undone", "why", err)
		a.done(Event{Action: Undo, Outcome: Refused, Err: err, Message: err.Error()})
		return
	}
	a.log.Info("dictation undone")
	a.done(Event{Action: Undo, Outcome: Undone, Message: "Last dictation removed"})
}

// edit has the selection rewritten as instruction says.
func (a *App) edit(ctx context.Context, req Request, instruction string) {
	if a.deps.Rewriter == nil {
		a.done(Event{Action: Edit, Outcome: Refused, Message: "Rewriting by voice is not available here"})
		return
	}
	a.setState(Output, "Rewriting…")
	answer, err := a.deps.Rewriter.Rewrite(ctx, req, instruction)
	if answer != "" {
		a.last = answer // Paste again puts it in, also where the focus moved meanwhile
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return
		}
		a.log.Info("selection not rewritten", "why", err)
		a.done(Event{Action: Edit, Outcome: Refused, Err: err, Message: err.Error()})
		return
	}
	a.play("done")
	a.log.Info("selection rewritten", "chars", len(answer))
	a.done(Event{Action: Edit, Outcome: Delivered, Text: answer, Message: "Selection rewritten"})
}

// done ends a command: the app is idle again, and e (State Idle) says how.
func (a *App) done(e Event) {
	a.mu.Lock()
	a.state = Idle
	a.mu.Unlock()
	e.State = Idle
	a.send(e)
}

// transcribe is the job's transcript: the one its hold made already, or a
// transcription now.
func (a *App) transcribe(ctx context.Context, j job) (Transcript, error) {
	if j.early != nil {
		return j.early.Finish(ctx, j.samples)
	}
	return a.deps.Transcriber.Transcribe(ctx, j.req, j.samples)
}

func (a *App) finish(ctx context.Context, j job) {
	t := Timings{Audio: time.Duration(len(j.samples)) * time.Second / 16000, CaptureStop: j.stopTook}
	tr, err := a.transcribe(ctx, j)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return
		}
		a.emit(Event{State: Error, Err: err, Message: "Transcription failed: " + err.Error()})
		return
	}
	t.Features, t.Engine, t.Cleanup, t.Early, t.Wasted, t.Reused, t.Forced = tr.Features, tr.Engine, tr.Cleaning, tr.Early, tr.Wasted, tr.Reused, tr.Forced
	done := Event{Profile: j.req.Profile(), Raw: tr.Raw, Cleanup: tr.Cleanup, Notice: tr.Notice, Language: tr.Language, Audio: j.samples}
	if tr.Text == "" && j.quiet {
		a.log.Info("recording ended by another shortcut, with no speech in it")
		a.setState(Idle, "")
		return
	}
	if tr.Text == "" {
		a.mu.Lock()
		a.state = Idle
		a.mu.Unlock()
		a.send(Event{State: Idle, Message: "Nothing heard", Outcome: NothingHeard})
		return
	}
	if j.action == Edit {
		a.edit(ctx, j.req, tr.Text)
		return
	}
	if a.deps.Commands != nil {
		// Said on its own, a command acts instead of being typed; the text as
		// heard counts too, in case an AI cleanup reworded it.
		if tr.Command == CommandUndo || a.deps.Commands.Command(tr.Text) == CommandUndo ||
			(tr.Raw != "" && a.deps.Commands.Command(tr.Raw) == CommandUndo) {
			a.undo(ctx)
			return
		}
	}
	a.last = tr.Text
	a.setState(Output, "Pasting…")
	pasteStart := time.Now()
	pastedAt, err := a.deps.Paster.Output(ctx, j.req, tr.Text, j.send || tr.Send)
	if pastedAt.IsZero() {
		pastedAt = time.Now()
	}
	t.Paste = pastedAt.Sub(pasteStart)
	t.ReleaseToPaste = pastedAt.Sub(j.released)
	if err != nil {
		done.State, done.Err, done.Text, done.Message, done.Timings = Error, err, tr.Text, err.Error(), t
		a.emit(done)
		return
	}
	a.play("done")
	a.log.Info("dictation done", "chars", len(tr.Text), "audio", t.Audio, "release_to_paste", t.ReleaseToPaste,
		"engine", t.Engine, "paste", t.Paste, "profile", j.req.Profile(), "cleanup", tr.Cleanup, "cleanup_time", t.Cleanup)
	a.mu.Lock()
	a.state = Idle
	a.mu.Unlock()
	done.State, done.Message, done.Text, done.Timings, done.Outcome = Idle, "Ready", tr.Text, t, Delivered
	a.send(done)
}

func (a *App) play(name string) {
	if a.cfg.Load().Sounds && a.deps.Sounds != nil {
		a.deps.Sounds.Play(name)
	}
}

func (a *App) setState(s State, msg string) {
	a.mu.Lock()
	a.state = s
	a.mu.Unlock()
	a.send(Event{State: s, Message: msg})
}

func (a *App) emit(e Event) {
	a.log.Warn(e.Message)
	a.mu.Lock()
	a.state = e.State
	a.mu.Unlock()
	a.send(e)
}

// send never blocks the dictation: a tray that falls behind misses
// intermediate states, not dictations.
func (a *App) send(e Event) {
	select {
	case a.events <- e:
	default:
		a.log.Debug("event dropped; nobody is reading", "state", e.State)
	}
}
