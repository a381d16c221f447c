package desktop

import (
	"io"

	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// RemoteEngine builds the engine to dictate with for a config
// (dictation.Remote).
type RemoteEngine = dictation.Remote

// SpeechDetector is what dictation asks of the speech detector
// (dictation.Detector; vad.Detector adapted by Detector).
type SpeechDetector = dictation.Detector

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
