package desktop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// readyText is the idle status line for the loaded model l (nil when none is).
func readyText(l *backend.Loaded, name string) string {
	if l == nil {
		return fmt.Sprintf("No speech model is loaded (%s failed to load) — pick a model in the Model menu", modelName(name))
	}
	dev := "CPU"
	if l.Spec.Device != "cpu" {
		dev = "GPU"
	}
	return fmt.Sprintf("%s — model %s · %s %s · ready", decisionText(l.Decision, l.Message), modelName(name), dev, l.ComputeType())
}

// decisionText is the engine's sentence, pointing at the Device menu's
// download when cuBLAS is all the GPU lacks.
func decisionText(d gpu.Decision, msg string) string {
	if d.FetchCUBLAS != 0 {
		msg += " — pick “" + gpu.FetchLabel + "” in the Device menu"
	}
	return msg
}

// modelName is how the status line names a model: a folder by its base name.
func modelName(arg string) string {
	if strings.ContainsRune(arg, os.PathSeparator) {
		return filepath.Base(arg)
	}
	return arg
}

// missingModelText says what is missing when no model could be loaded, and
// how to fix it; after a failed download also how to get a model in where
// Hugging Face is blocked, with the guide at help.
func missingModelText(name string, err error, help string) string {
	fix := fmt.Sprintf("Connect to the internet and pick “%s” in the Model menu, or run `whisperkey models pull %s`", retryLabel(name), name)
	switch {
	case errors.Is(err, errDownload) && !errors.Is(err, models.ErrNoSpace):
		return fmt.Sprintf("Model %s is not downloaded and the download failed (%v). %s. Where Hugging Face is blocked, "+
			"copy a model in with `whisperkey models import PATH` or set models.mirror in config.yaml (%s)", name, errors.Unwrap(err), fix, help)
	case errors.Is(err, errDownload):
		return fmt.Sprintf("Model %s is not downloaded and the download failed (%v). %s", name, errors.Unwrap(err), fix)
	case errors.Is(err, backend.ErrModelMissing):
		return fmt.Sprintf("Model %s is not downloaded yet. %s", name, fix)
	}
	return fmt.Sprintf("Model %s could not be loaded: %v. Pick another in the Model menu", modelName(name), err)
}

// retryLabel is the Model menu item that retries a failed download.
func retryLabel(name string) string { return name + " — retry download" }

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
