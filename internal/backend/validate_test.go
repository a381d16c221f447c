package backend

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string // "" means valid
	}{
		{"auto", ValidateDevice("auto"), ""},
		{"rocm", ValidateDevice("rocm"), ""},
		{"gpu is not a device", ValidateDevice("gpu"), `device "gpu" is not one of auto, cpu, cuda, rocm`},
		{"empty device", ValidateDevice(""), `device "" is not one of auto, cpu, cuda, rocm`},
		{"bogus device", ValidateDevice("bogus"), "auto, cpu, cuda, rocm"},
		{"0 threads", ValidateThreads(0), ""},
		{"8 threads", ValidateThreads(8), ""},
		{"negative threads", ValidateThreads(-5), "threads -5 is out of range: use 0"},
		{"absurd threads (the worker crashed)", ValidateThreads(100000), "threads 100000 is out of range: use 0 (all cores, up to 4) or 1 to 256"},
		{"the most threads", ValidateThreads(MaxThreads), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && tc.err != nil:
				t.Fatalf("err = %v, want valid", tc.err)
			case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", tc.err, tc.want)
			}
		})
	}
}

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
