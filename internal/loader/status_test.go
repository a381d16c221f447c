package loader

import (
	"errors"
	"fmt"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// With no model loaded (a switch whose way back also failed), the status line
// says so and how to recover instead of dereferencing nil.
func TestReadyTextWithoutModel(t *testing.T) {
	got := ReadyText(nil, "/models/whisper-base")
	for _, want := range []string{"No speech model", "whisper-base", "Model menu"} {
		if !strings.Contains(got, want) {
			t.Errorf("ReadyText(nil) = %q, want it to mention %q", got, want)
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
		{name: "model missing", text: MissingModelText("base.en", missing, help),
			want: []string{"base.en is not downloaded yet", "“base.en — retry download”", "whisperkey models pull base.en"}},
		{name: "download failed", text: MissingModelText("base.en", offline, help),
			want: []string{"download failed (cannot reach https://huggingface.co", "Connect to the internet", "retry download",
				"Where Hugging Face is blocked", "whisperkey models import PATH", "models.mirror", help}},
		{name: "disk full", text: MissingModelText("base.en", full, help),
			want: []string{"download failed", "not enough disk space"}, notWant: []string{"models import"}},
		{name: "broken model", text: MissingModelText("/m/whisper-x", errors.New("model.bin is truncated"), help),
			want: []string{"whisper-x could not be loaded", "truncated", "Pick another"}},
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

// On an NVIDIA machine that lacks only cuBLAS (the decision of the recorded
// win-rtx3060-no-cublas machine) the status line points at the download.
func TestDecisionTextOffersCUBLAS(t *testing.T) {
	const msg = "Detected NVIDIA GeForce RTX 3060, but cuBLAS for CUDA 12 is not installed — using CPU mode. Setup: docs/gpu-setup.md#install-the-cuda-12-libraries"
	if got := DecisionText(gpu.Decision{Variant: "cpu", FetchCUBLAS: 12}, msg); got != msg+" — pick “Download cuBLAS for the GPU” in the Device menu" {
		t.Errorf("DecisionText = %q", got)
	}
	if got := DecisionText(gpu.Decision{Variant: "cpu"}, msg); got != msg {
		t.Errorf("without a download to offer: %q", got)
	}
}
