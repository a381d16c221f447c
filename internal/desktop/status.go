package desktop

import (
	"fmt"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
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

// audioStatus is the tray state and text for a microphone event.
func audioStatus(e audio.Event) (state tray.State, text string) {
	dev := e.Device
	if dev == "" {
		dev = "the default microphone"
	}
	switch e.Kind {
	case audio.EventDeviceLost:
		if e.Err != nil {
			return tray.StateError, "Microphone unavailable: " + e.Err.Error()
		}
		return tray.StateError, fmt.Sprintf("Microphone %s unavailable; reconnect it or pick another in the Input device menu", dev)
	case audio.EventDeviceRestored:
		return tray.StateIdle, fmt.Sprintf("Microphone %s is back — ready", dev)
	case audio.EventDeviceChanged:
		if e.Was != "" {
			return tray.StateIdle, fmt.Sprintf("Recording from %s (was %s) — ready", dev, e.Was)
		}
		return tray.StateIdle, fmt.Sprintf("Recording from %s — ready", dev)
	case audio.EventLimit:
		return tray.StateRecording, "Maximum recording length reached — release the hotkey to transcribe what was said (audio.max_duration)"
	}
	return tray.StateIdle, e.Kind.String()
}
