package backend

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
)

func TestUnmetRequest(t *testing.T) {
	cpu := &Loaded{Spec: engine.Spec{Device: "cpu"}, Message: "No NVIDIA GPU found for device: cuda — using CPU mode"}
	gpu := &Loaded{Spec: engine.Spec{Device: "cuda"}, Message: "Detected X — using GPU acceleration"}
	tests := []struct {
		requested string
		l         *Loaded
		want      string
	}{
		{"cuda", cpu, "device cuda was requested but cannot be used: No NVIDIA GPU found"},
		{"rocm", cpu, "device rocm was requested"},
		{"cuda", gpu, ""},
		{"auto", cpu, ""},
		{"cpu", cpu, ""},
	}
	for _, tc := range tests {
		got := UnmetRequest(tc.requested, tc.l)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("UnmetRequest(%s, %s) = %q, want %q", tc.requested, tc.l.Spec.Device, got, tc.want)
		}
	}
}
