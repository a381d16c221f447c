package desktop

import (
	"io"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/hotkey"
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
