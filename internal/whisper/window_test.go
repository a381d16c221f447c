package whisper_test

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// auto is the short window on the CPU only; a chosen window stays as chosen
// on either device.
func TestWindowResolve(t *testing.T) {
	cases := []struct {
		w        whisper.Window
		cpu, gpu whisper.Window
	}{
		{whisper.AutoWindow, whisper.ShortWindow, whisper.FullWindow},
		{whisper.ShortWindow, whisper.ShortWindow, whisper.ShortWindow},
		{whisper.FullWindow, whisper.FullWindow, whisper.FullWindow},
	}
	for _, tc := range cases {
		if got := tc.w.Resolve(true); got != tc.cpu {
			t.Errorf("%v on the CPU: %v, want %v", tc.w, got, tc.cpu)
		}
		if got := tc.w.Resolve(false); got != tc.gpu {
			t.Errorf("%v on a GPU: %v, want %v", tc.w, got, tc.gpu)
		}
	}
	if got := whisper.DefaultOptions().Window; got != whisper.AutoWindow {
		t.Errorf("the default window is %v, want auto", got)
	}
}
