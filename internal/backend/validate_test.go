package backend

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/engine"
)

func TestUnmetRequest(t *testing.T) {
	cpu := &Loaded{Spec: engine.Spec{Device: "cpu"}, Message: "No NVIDIA GPU found for device: cuda — using CPU mode"}
	gpu := &Loaded{Spec: engine.Spec{Device: "cuda"}, Message: "Detected X — using GPU acceleration"}
	tests := []struct {
		requested choice.Device
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

func TestResolveComputeType(t *testing.T) {
	tests := []struct {
		name      string
		ct        choice.ComputeType
		device    string
		supported []choice.ComputeType
		want      choice.ComputeType
	}{
		{"explicit stays", "int8", "cpu", []choice.ComputeType{"float32"}, "int8"},
		{"auto on a CPU with int8", "auto", "cpu", []choice.ComputeType{"float32", "int8_float32", "int8"}, "int8_float32"},
		{"auto on a GPU prefers int8_float16", "auto", "cuda", []choice.ComputeType{"float32", "float16", "int8_float16"}, "int8_float16"},
		{"auto with nothing known", "auto", "cpu", nil, "auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolveComputeType(tt.ct, tt.device, tt.supported); got != tt.want {
				t.Fatalf("resolveComputeType = %q, want %q", got, tt.want)
			}
		})
	}
}
