package output

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

var (
	// ErrTargetElevated means the focused window runs with more rights than we do, so
	// the OS would drop a synthetic paste without a word. The text is left on the clipboard.
	ErrTargetElevated = errors.New("the focused window runs as administrator, so Windows blocks our paste; the text is on the clipboard — press Ctrl+V")
	// ErrNoPaste means no paste keystroke can be sent here (no X display, no XTest); the
	// text is left on the clipboard.
	ErrNoPaste = errors.New("cannot send the paste keystroke; the text is on the clipboard — press Ctrl+V")
	// ErrInvalidMode marks a bad output mode in the config.
	ErrInvalidMode = errors.New("invalid output mode")
)

// checkMode refuses a mode that is not one of choice.PasteModes; "" is the default.
func checkMode(m choice.PasteMode) (choice.PasteMode, error) {
	if m == "" {
		return choice.Paste, nil
	}
	if !m.Valid() {
		return "", fmt.Errorf("%w %q: use %q (paste at the cursor), %q (only copy), %q (paste, then press Enter) or %q (send keystrokes)",
			ErrInvalidMode, string(m), choice.Paste, choice.Clipboard, choice.PasteEnter, choice.Type)
	}
	return m, nil
}

// Config says how text is delivered. Zero fields take the defaults.
type Config struct {
	// Mode is choice.Paste (also ""), Clipboard, PasteEnter or Type.
	Mode choice.PasteMode
	// RestoreDelay is how long the target gets to read the clipboard after the paste
	// keystroke before the previous content is put back, where nothing reports
	// the read (X11 and Windows report it: see ReadTimeout). Too short and a slow
	// app pastes the old content. Default 500ms.
	RestoreDelay time.Duration
	// KeyReleaseTimeout is how long to wait for the user to let go of every key (the
	// hotkey's modifiers would otherwise turn Ctrl+V into, say, Ctrl+Shift+V). After it,
	// held modifiers are lifted for the paste and pressed again. Default 2s.
	KeyReleaseTimeout time.Duration
	// EnterDelay separates the paste from Enter, so apps that paste asynchronously
	// (browsers, Electron) insert the text first. Default 100ms.
	EnterDelay time.Duration
	// JoinWindow: a dictation into the same window within this time of the previous one
	// gets a separating space (see Joiner). Default 60s; negative turns joining off.
	JoinWindow time.Duration
	// ReadTimeout is how long the target gets to ask for the clipboard where we can see
	// it ask (X11, Windows); without a request the text stays on the clipboard and
	// Output returns ErrNotRead. Default 3s. RestoreDelay applies where we cannot see.
	ReadTimeout time.Duration
	// RemoteTokenPath is where the RemoteDesktop portal's restore token is
	// kept (in the state folder), so a desktop without a virtual keyboard
	// (GNOME) asks once to let WhisperKey press Ctrl+V; "" keeps none.
	RemoteTokenPath string
}

func (c Config) withDefaults() Config {
	if c.RestoreDelay <= 0 {
		c.RestoreDelay = 500 * time.Millisecond
	}
	if c.KeyReleaseTimeout <= 0 {
		c.KeyReleaseTimeout = 2 * time.Second
	}
	if c.EnterDelay <= 0 {
		c.EnterDelay = 100 * time.Millisecond
	}
	if c.JoinWindow == 0 {
		c.JoinWindow = 60 * time.Second
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 3 * time.Second
	}
	return c
}

// Options adjust one Output call.
type Options struct {
	// PressEnter presses Enter after the paste (the auto-send hotkey); ignored in clipboard mode.
	PressEnter bool
	// Mode, when set, is this call's mode instead of the Paster's (a
	// profile's paste setting).
	Mode choice.PasteMode
	// Replace, when set, is the Selection the text replaces: it goes only to
	// that window (ErrFocusChanged otherwise), as it is, not joined to the
	// dictation before, and Undo does not take it back (the window's own
	// undo brings the selection back; ours would only delete the text).
	Replace *Selection
}

// Result says what Output did.
type Result struct {
	Text         string // the text delivered, after joining (leading space added or trimmed)
	Pasted       bool   // the paste keystroke was sent
	PressedEnter bool   // Enter was sent after it
	OnClipboard  bool   // the text is still on the clipboard (clipboard mode, or no paste possible)
	Restored     bool   // the previous clipboard was put back
	// PastedAt is when the paste keystroke went out: when the text appears,
	// before the clipboard is restored.
	PastedAt time.Time
	Verified bool   // the target was seen reading the clipboard
	Typed    bool   // the text went out as keystrokes (choice.Type)
	PasteKey string // the paste keystroke sent: "ctrl+v", "ctrl+shift+v" (terminals) or "shift+insert"
}

// Paster delivers dictated text. Output calls are serialised.
type Paster struct {
	cfg  Config
	mode choice.PasteMode
	log  *slog.Logger

	mu     sync.Mutex
	os     *osBackend
	join   *Joiner
	closed bool
	// last is what the last Output inserted, for Undo; zero when it
	// inserted nothing.
	last insertion

	// test hooks: run after the paste keystroke, and when keys are found held before it
	afterPaste func()
	onKeysHeld func()
}

// New prepares the clipboard and the keystroke injection. It fails when the clipboard
// cannot be used at all; when only the keystroke is impossible (e.g. no X display or no
// XTest), the paste modes return ErrNoPaste and leave the text on the clipboard.
func New(cfg Config, log *slog.Logger) (*Paster, error) {
	cfg = cfg.withDefaults()
	mode, err := checkMode(cfg.Mode)
	if err != nil {
		return nil, err
	}
	log = log.With("pkg", "output")
	b, err := newOSBackend(log, cfg)
	if err != nil {
		return nil, err
	}
	return &Paster{cfg: cfg, mode: mode, log: log, os: b, join: NewJoiner(cfg.JoinWindow)}, nil
}

// SetMode sets the mode of the next Output; an invalid mode changes nothing. A
// paste in progress finishes in the mode it started with.
func (p *Paster) SetMode(mode choice.PasteMode) error {
	m, err := checkMode(mode)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	return nil
}

// Close releases the OS resources. Idempotent.
func (p *Paster) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return p.os.close()
}

// Output puts text at the cursor of the focused window. In paste modes it saves the
// clipboard, writes the text, waits until no key is held, sends Ctrl+V (and Enter),
// waits for the target to read the clipboard (up to ReadTimeout where the read is
// seen, else RestoreDelay), then restores the saved content unless another program
// has written to the clipboard meanwhile; a target that never read it leaves the text
// on the clipboard and gets ErrNotRead. The type mode sends the text as keystrokes. Whisper's leading
// space is trimmed, and a space is added when the text continues the previous dictation
// (see Joiner). It returns ErrTargetElevated or ErrNoPaste, with the text left on the
// clipboard, when the keystroke cannot reach the target. Whatever produced text,
// it goes out as plain characters (see clean).
func (p *Paster) Output(ctx context.Context, text string, opt Options) (Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return Result{}, errors.New("output: paster closed")
	}
	text = p.clean(text)
	target, blocked, err := p.os.target()
	if err != nil {
		p.log.Debug("cannot identify the focused window", "err", err)
	}
	p.os.use(target)
	p.last = insertion{} // whatever happens now, the text before is no longer the last
	var res Result
	if opt.Replace != nil {
		if target != opt.Replace.Window {
			return res, ErrFocusChanged
		}
		res.Text = strings.TrimLeftFunc(text, unicode.IsSpace)
	} else {
		res.Text = p.join.Join(text, target, time.Now())
	}
	if res.Text == "" {
		return res, nil
	}
	mode := p.mode
	if opt.Mode != "" {
		m, err := checkMode(opt.Mode)
		if err != nil {
			return res, err
		}
		mode = m
	}
	if mode == choice.Clipboard {
		// The user pastes this text: an ordinary copy, kept in clipboard history.
		if _, err := p.os.write(ctx, res.Text, false); err != nil {
			return res, fmt.Errorf("put the text on the clipboard: %w", err)
		}
		res.OnClipboard = true
		return res, nil
	}
	if opt.Replace != nil && opt.Replace.Text != "" {
		if err := p.clearSelection(ctx, opt.Replace.Text); err != nil {
			return res, err
		}
	}
	if mode == choice.Type {
		res, err := p.typeOut(ctx, res, opt)
		if err == nil && res.Typed && opt.Replace == nil {
			p.last = insertion{text: res.Text, target: target, entered: res.PressedEnter}
		}
		return res, err
	}

	saved, err := p.os.save(ctx)
	if err != nil {
		p.log.Warn("cannot save the clipboard; it will not be restored", "err", err)
	}
	style := p.os.pasteStyle(target)
	own, err := p.os.writeFor(ctx, res.Text, target, style)
	if err != nil {
		return res, fmt.Errorf("put the text on the clipboard: %w", err)
	}
	res.OnClipboard = true
	if blocked {
		p.log.Info("paste skipped: focused window is elevated")
		return res, ErrTargetElevated
	}
	if err := p.os.canPaste(); err != nil {
		return res, fmt.Errorf("%w (%v)", ErrNoPaste, err)
	}

	lifted, err := p.waitKeysReleased(ctx)
	if err != nil {
		// Cancelled before the paste: the user's clipboard comes back now.
		res.Restored, res.OnClipboard = p.restore(ctx, saved, own)
		return res, err
	}
	enter := mode == choice.PasteEnter || opt.PressEnter
	pastedAt := time.Now()
	entered, err := p.sendPaste(ctx, lifted, style, enter, own)
	if err != nil {
		return res, fmt.Errorf("%w (%v)", ErrNoPaste, err)
	}
	res.Pasted, res.PressedEnter, res.PastedAt, res.PasteKey = true, entered, pastedAt, style.String()
	if p.afterPaste != nil {
		p.afterPaste()
	}

	// The old content comes back only once the target has fetched the text. On cancel,
	// restore at once: the user's clipboard matters more than a late paste.
	if !p.awaitRead(ctx, own, &res, pastedAt) {
		return res, ErrNotRead
	}
	if opt.Replace == nil {
		p.last = insertion{text: res.Text, target: target, entered: res.PressedEnter}
	}
	res.Restored, res.OnClipboard = p.restore(ctx, saved, own)
	return res, ctx.Err()
}

// clean is the one sanitising step of every text on its way to a window or
// the clipboard (Output, Copy): the engines', a cleanup's or rewrite's
// answer, a Recent entry, paste again. No escape sequence, control, bidi
// override or invisible character gets through (textproc.SanitizeLines),
// and a line feed is the only line break: under the type mode it is an
// Enter, so the producers let one through only where the user dictated it.
func (p *Paster) clean(text string) string {
	out := textproc.SanitizeLines(text)
	if len(out) != len(text) {
		p.log.Info("control characters removed from the text", "bytes_in", len(text), "bytes_out", len(out))
	}
	return out
}

// restore puts the saved clipboard back unless another program wrote to it since our
// write. It reports whether it did, and whether our text is still on the clipboard.
func (p *Paster) restore(ctx context.Context, saved *snapshot, own *ownership) (restored, ours bool) {
	if saved == nil {
		return false, p.os.stillOurs(own)
	}
	restored, err := p.os.restore(context.WithoutCancel(ctx), saved, own)
	switch {
	case err != nil:
		p.log.Warn("cannot restore the clipboard", "err", err)
	case !restored:
		p.log.Info("clipboard changed by another program during the paste; not restored")
	}
	return restored, !restored && p.os.stillOurs(own)
}

// waitKeysReleased waits until no key is down, up to KeyReleaseTimeout. It returns the
// modifiers still held after the timeout: the paste lifts them and presses them again.
func (p *Paster) waitKeysReleased(ctx context.Context) ([]uint32, error) {
	deadline := time.Now().Add(p.cfg.KeyReleaseTimeout)
	for first := true; ; first = false {
		down, err := p.os.keysDown()
		if err != nil {
			p.log.Debug("cannot read the keyboard; pasting without waiting", "err", err)
			return nil, nil
		}
		if len(down) == 0 {
			return nil, nil
		}
		if first {
			p.log.Debug("waiting for keys to be released before pasting", "keys", len(down))
			if p.onKeysHeld != nil {
				p.onKeysHeld()
			}
		}
		if time.Now().After(deadline) {
			var mods []uint32
			for _, k := range down {
				if p.os.isModifier(k) {
					mods = append(mods, k)
				}
			}
			p.log.Info("keys still held; lifting modifiers for the paste", "modifiers", len(mods))
			return mods, nil
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// keysFree readies the keyboard for keystrokes that a held modifier would
// change (Shift+Left with Ctrl held selects words, Ctrl+C with Win held is
// another shortcut): it waits for the keys to be released and lifts the
// modifiers still down after KeyReleaseTimeout, a finger resting on one or
// a key-up the system lost, as the paste does. The func it returns presses
// them again, so the keyboard state matches the hand.
func (p *Paster) keysFree(ctx context.Context) (func(), error) {
	lifted, err := p.waitKeysReleased(ctx)
	if err != nil {
		return nil, err
	}
	if len(lifted) == 0 {
		return func() {}, nil
	}
	up := make([]keyEvent, 0, len(lifted))
	down := make([]keyEvent, 0, len(lifted))
	for _, m := range lifted {
		up = append(up, keyEvent{code: m, down: false})
		down = append(down, keyEvent{code: m, down: true})
	}
	if err := p.os.send(up); err != nil {
		return nil, fmt.Errorf("lift the held modifiers: %w", err)
	}
	return func() {
		if err := p.os.send(down); err != nil {
			p.log.Warn("could not press the held modifiers again", "err", err)
		}
	}, nil
}

// sendPaste sends the paste keystroke (Ctrl+V, or a terminal's) and, when enter is
// set, Enter, with the lifted modifiers up around them. Enter waits until the target
// fetched the text (where own can tell): a target that has not, busy or slow to
// answer, would take Enter first and send an empty message, or run a terminal line
// without the text. It reports whether Enter went out.
func (p *Paster) sendPaste(ctx context.Context, lifted []uint32, style pasteStyle, enter bool, own *ownership) (bool, error) {
	k := p.os.keys()
	var seq []keyEvent
	for _, m := range lifted {
		seq = append(seq, keyEvent{code: m, down: false})
	}
	seq = append(seq, p.os.pasteSeq(style)...)
	if err := p.os.send(seq); err != nil {
		return false, err
	}
	entered := false
	if enter && p.textFetched(ctx, own) {
		select {
		case <-time.After(p.cfg.EnterDelay):
		case <-ctx.Done():
		}
		if err := p.os.send([]keyEvent{{k.enter, true}, {k.enter, false}}); err != nil {
			return false, err
		}
		entered = true
	}
	if len(lifted) > 0 {
		var again []keyEvent
		for _, m := range lifted {
			again = append(again, keyEvent{code: m, down: true})
		}
		return entered, p.os.send(again)
	}
	return entered, nil
}

// textFetched waits until the target asked for the text, up to ReadTimeout; true at
// once where nothing reports the read.
func (p *Paster) textFetched(ctx context.Context, own *ownership) bool {
	read := own.readSignal()
	if read == nil {
		return true
	}
	timeout := time.NewTimer(p.cfg.ReadTimeout)
	defer timeout.Stop()
	select {
	case <-read:
		return true
	case <-timeout.C:
	case <-ctx.Done():
	}
	return false
}

// keyEvent is one synthetic key press or release; code is an X11 keycode or a Windows virtual-key code.
type keyEvent struct {
	code uint32
	down bool
}

// pasteKeys are the codes of Ctrl, V and Enter on this system.
type pasteKeys struct{ ctrl, v, enter uint32 }
