package gpu

import (
	"context"
	"strings"
	"testing"
)

// TestDetectSystem runs the real probes on this machine. Any machine will do:
// without a GPU the answer is CPU mode, and it must still be one clear sentence.
func TestDetectSystem(t *testing.T) {
	r := Detect(context.Background(), SystemSources(), testLogger(t))
	d := Choose(r, "auto", Engines{Have: func(string) bool { return false }})
	t.Logf("%d GPUs, %d ROCm installs, %d cuBLAS; problems: %q", len(r.GPUs), len(r.ROCm), len(r.CUBLAS), r.Problems)
	t.Log(d.Message)
	if !strings.HasSuffix(d.Message, "— using CPU mode") && !strings.Contains(d.Message, "— using CPU mode. Setup: docs/gpu-setup.md#") {
		t.Errorf("with no engine folders installed the answer must be CPU mode, got %q", d.Message)
	}
	for _, c := range Requirements(r, d) {
		if c.Name == "" || (!c.OK && c.Fix == "") {
			t.Errorf("requirement %+v has no name or no fix", c)
		}
	}
}
