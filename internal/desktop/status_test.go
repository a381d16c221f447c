package desktop

import (
	"strings"
	"testing"
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
