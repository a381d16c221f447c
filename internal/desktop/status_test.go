package desktop

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// With no model loaded (a switch whose way back also failed), the status line
// says so and how to recover instead of dereferencing nil.
func TestReadyTextWithoutModel(t *testing.T) {
	got := readyText(nil, "/models/whisper-base")
	for _, want := range []string{"No speech model", "whisper-base", "Model menu"} {
		if !strings.Contains(got, want) {
			t.Errorf("readyText(nil) = %q, want it to mention %q", got, want)
		}
	}
}

func TestStatusTexts(t *testing.T) {
	missing := fmt.Errorf("%w: base.en — run `whisperkey models pull base.en`", backend.ErrModelMissing)
	offline := downloadError{errors.New("cannot reach https://huggingface.co: hugging face unreachable")}
	tests := []struct {
		name      string
		state     string
		text      string
		wantState string
		want      []string
	}{
		{name: "model missing", text: missingModelText("base.en", missing),
			want: []string{"base.en is not downloaded yet", "“base.en — retry download”", "whisperkey models pull base.en"}},
		{name: "download failed", text: missingModelText("base.en", offline),
			want: []string{"download failed (cannot reach https://huggingface.co", "Connect to the internet", "retry download"}},
		{name: "broken model", text: missingModelText("/m/whisper-x", errors.New("model.bin is truncated")),
			want: []string{"whisper-x could not be loaded", "truncated", "Pick another"}},
	}
	audioCases := []struct {
		name      string
		e         audio.Event
		wantState string
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
		st, text := audioStatus(a.e)
		tests = append(tests, struct {
			name      string
			state     string
			text      string
			wantState string
			want      []string
		}{a.name, st, text, a.wantState, a.want})
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
		})
	}
}

func TestAppState(t *testing.T) {
	for s, want := range map[app.State]string{app.Idle: tray.StateIdle, app.Recording: tray.StateRecording,
		app.Transcribing: tray.StateTranscribing, app.Output: tray.StateTranscribing, app.Error: tray.StateError} {
		if got := appState(s); got != want {
			t.Errorf("appState(%v) = %q, want %q", s, got, want)
		}
	}
}
