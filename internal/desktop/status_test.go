package desktop

import (
	"errors"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/tray"
)

func TestStatusTexts(t *testing.T) {
	tests := []struct {
		name      string
		state     tray.State
		text      string
		wantState tray.State
		want      []string
		notWant   []string
	}{}
	audioCases := []struct {
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
	for _, a := range audioCases {
		st, text := feedback.MicStatus(a.e)
		tests = append(tests, struct {
			name      string
			state     tray.State
			text      string
			wantState tray.State
			want      []string
			notWant   []string
		}{a.name, st, text, a.wantState, a.want, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.state != tt.wantState {
				t.Errorf("state %q, want %q", tt.state, tt.wantState)
			}
			for _, w := range tt.want {
				if !strings.Contains(tt.text, w) {
					t.Errorf("%q lacks %q", tt.text, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(tt.text, w) {
					t.Errorf("%q says %q", tt.text, w)
				}
			}
		})
	}
}

func TestAppState(t *testing.T) {
	for s, want := range map[app.State]tray.State{app.Idle: tray.StateIdle, app.Recording: tray.StateRecording,
		app.Transcribing: tray.StateTranscribing, app.Output: tray.StateTranscribing, app.Error: tray.StateError} {
		if got := appState(s); got != want {
			t.Errorf("appState(%v) = %q, want %q", s, got, want)
		}
	}
}
