package desktop

import (
	"errors"
	"fmt"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/models"
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
	full := downloadError{fmt.Errorf("not enough disk space to pull base.en: %w", models.ErrNoSpace)}
	const help = `C:\Program Files\WhisperKey\docs\installing-at-work.md`
	tests := []struct {
		name      string
		state     tray.State
		text      string
		wantState tray.State
		want      []string
		notWant   []string
	}{
		{name: "model missing", text: missingModelText("base.en", missing, help),
			want: []string{"base.en is not downloaded yet", "“base.en — retry download”", "whisperkey models pull base.en"}},
		{name: "download failed", text: missingModelText("base.en", offline, help),
			want: []string{"download failed (cannot reach https://huggingface.co", "Connect to the internet", "retry download",
				"Where Hugging Face is blocked", "whisperkey models import PATH", "models.mirror", help}},
		{name: "disk full", text: missingModelText("base.en", full, help),
			want: []string{"download failed", "not enough disk space"}, notWant: []string{"models import"}},
		{name: "broken model", text: missingModelText("/m/whisper-x", errors.New("model.bin is truncated"), help),
			want: []string{"whisper-x could not be loaded", "truncated", "Pick another"}},
	}
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
		st, text := audioStatus(a.e)
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

// On an NVIDIA machine that lacks only cuBLAS (the decision of the recorded
// win-rtx3060-no-cublas machine) the status line points at the download.
func TestDecisionTextOffersCUBLAS(t *testing.T) {
	const msg = "Detected NVIDIA GeForce RTX 3060, but cuBLAS for CUDA 12 is not installed — using CPU mode. Setup: docs/gpu-setup.md#install-the-cuda-12-libraries"
	if got := decisionText(gpu.Decision{Variant: "cpu", FetchCUBLAS: 12}, msg); got != msg+" — pick “Download cuBLAS for the GPU” in the Device menu" {
		t.Errorf("decisionText = %q", got)
	}
	if got := decisionText(gpu.Decision{Variant: "cpu"}, msg); got != msg {
		t.Errorf("without a download to offer: %q", got)
	}
}
