package feedback

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/tray"
)

func TestTrayState(t *testing.T) {
	for s, want := range map[app.State]tray.State{app.Idle: tray.StateIdle, app.Recording: tray.StateRecording,
		app.Transcribing: tray.StateTranscribing, app.Output: tray.StateTranscribing, app.Error: tray.StateError} {
		if got := TrayState(s); got != want {
			t.Errorf("TrayState(%v) = %q, want %q", s, got, want)
		}
	}
}
