//go:build linux && cgo

package grab

import (
	"errors"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestNewWithoutDisplay(t *testing.T) {
	tests := []struct {
		name    string
		display string
		want    string // in the message
	}{
		{name: "unset", display: "", want: "DISPLAY is not set"},
		{name: "no server", display: ":7391", want: `":7391"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DISPLAY", tt.display)
			g, err := New(logger(t))
			if err == nil {
				g.Close()
				t.Fatal("New succeeded without an X server")
			}
			if !errors.Is(err, ErrNoDisplay) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v; want an error wrapping ErrNoDisplay that mentions %s", err, tt.want)
			}
		})
	}
}

func TestCleanMods(t *testing.T) {
	tabletest.Check(t, "cleanMods", cleanMods, []tabletest.Case[uint, uint]{
		{Name: "plain", In: controlMask | shiftMask, Want: controlMask | shiftMask},
		{Name: "capslock", In: controlMask | lockMask, Want: controlMask},
		{Name: "numlock", In: mod4Mask | mod2Mask, Want: mod4Mask},
		{Name: "mouse button held", In: mod1Mask | 1<<8, Want: mod1Mask},
		{Name: "nothing", In: lockMask | mod2Mask, Want: 0},
	})
}

func TestX11Mask(t *testing.T) {
	tests := []struct {
		name string
		mods hotkey.Mods
		want uint
	}{
		{name: "none", mods: 0, want: 0},
		{name: "ctrl+win", mods: hotkey.ModCtrl | hotkey.ModWin, want: controlMask | mod4Mask},
		{name: "all", mods: hotkey.ModCtrl | hotkey.ModShift | hotkey.ModAlt | hotkey.ModWin, want: controlMask | shiftMask | mod1Mask | mod4Mask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := x11Mask(tt.mods); got != tt.want {
				t.Fatalf("x11Mask(%s) = %#x, want %#x", tt.mods, got, tt.want)
			}
		})
	}
}
