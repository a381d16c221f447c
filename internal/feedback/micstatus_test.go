package feedback

import (
	"errors"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// Each microphone event gets its tray state and a line naming the device
// and what to do.
func TestMicStatus(t *testing.T) {
	tests := []struct {
		name      string
		e         audio.Event
		wantState tray.State
		want      []string
	}{
		{"microphone lost", audio.Event{Kind: audio.EventDeviceLost, Device: "USB mic", Err: errors.New(`microphone "USB mic" stopped delivering audio; reconnect it`)},
			tray.StateError, []string{"USB mic", "reconnect"}},
		{"lost with no reason", audio.Event{Kind: audio.EventDeviceLost}, tray.StateError, []string{"default microphone", "Input device"}},
		{"microphone back", audio.Event{Kind: audio.EventDeviceRestored, Device: "USB mic"}, tray.StateIdle, []string{"USB mic is back", "ready"}},
		{"default moved", audio.Event{Kind: audio.EventDeviceChanged, Device: "Headset", Was: "Laptop mic"}, tray.StateIdle,
			[]string{"Recording from Headset", "was Laptop mic", "ready"}},
		{"maximum length", audio.Event{Kind: audio.EventLimit}, tray.StateRecording, []string{"Maximum recording length", "audio.max_duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, text := MicStatus(tt.e)
			if state != tt.wantState {
				t.Errorf("state %q, want %q", state, tt.wantState)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}
