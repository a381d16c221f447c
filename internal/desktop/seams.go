package desktop

import (
	"io"
	"time"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/notify"
)

// RemoteEngine builds the engine to dictate with for cfg (internal/remote,
// when cfg names a remote URL), given the local engine to fall back to and
// tell, which shows the user a message (a notification) when the remote
// engine gives way. It returns local itself when cfg asks for no remote
// engine. Called at start and on every config change, so it must be quick
// and not touch the network.
type RemoteEngine func(cfg config.Config, local dictation.Engine, tell func(msg string)) (dictation.Engine, error)

// ShortcutRoute binds record (hotkeys.record) as a shortcut of the desktop
// whose presses call drive with the record hotkey's edges. It returns at
// once and reports once through
// bound: a note for the tray when the shortcut works, or an error that says
// what to do instead. Close unbinds it.
type ShortcutRoute func(record string, drive func(hotkey.Command) error, bound func(note string, err error)) io.Closer

// LockRoute follows the login session, calling changed with false when the
// screen locks or another user's session comes in front and with true when
// this one is back. Close stops it.
type LockRoute func(changed func(open bool)) io.Closer

// Indicator is what the desk needs of the on-screen indicator
// (indicator.Indicator).
type Indicator interface {
	Show(s indicator.State, text string)
	SetLevel(level float32)
	// Live shows the hold's words so far while recording; the indicator
	// fits them to its space at its own font.
	Live(text string)
	Hide()
	Close() error
}

// Notifier is what the desk needs of desktop notifications (notify.Notifier).
// Notify must not block long.
type Notifier interface {
	Notify(m notify.Message) bool
	Close() error
}

// History is what the desk needs of the recent dictations (history.History).
type History interface {
	Add(text string, at time.Time) (history.Entry, error)
	AddEntry(e history.Entry) (history.Entry, error)
	Entries() []history.Entry
	Get(id string) (history.Entry, bool)
	MarkUndone(id string) error
}

// StartAtLogin is what the tray's "Start at login" toggle needs
// (autostart.Autostart).
type StartAtLogin interface {
	Enabled() (bool, error)
	Set(on bool) error
	Where() string
}
