package desktop

import (
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// appState maps a dictation state to the tray's.
func appState(s app.State) tray.State {
	switch s {
	case app.Recording:
		return tray.StateRecording
	case app.Transcribing, app.Output:
		return tray.StateTranscribing
	case app.Error:
		return tray.StateError
	}
	return tray.StateIdle
}
