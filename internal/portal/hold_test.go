package portal

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// noKeys registers nothing with the OS: the shortcut is the only source.
type noKeys struct{}

func (noKeys) Grab(hotkey.Combo) (hotkey.Grab, error) { return noGrab{}, nil }

type noGrab struct{}

func (noGrab) Edges() <-chan hotkey.Edge { return nil }
func (noGrab) Release() error            { return nil }

// Hold's actions on the real record hotkey: hold mode holds where the
// desktop reports releases and toggles where it does not; toggle mode
// toggles on each press either way.
func TestHoldDrivesTheHotkey(t *testing.T) {
	const A, D = true, false
	for _, tt := range []struct {
		name    string
		mode    choice.HotkeyMode
		signals []bool
		want    string // the listener's events
	}{
		{"hold mode, releases reported", choice.Hold, []bool{A, D, A, D}, "start,stop,start,stop"},
		{"hold mode, activations only", choice.Hold, []bool{A, A, A, A}, "start,stop,start,stop"},
		{"toggle mode, releases reported", choice.Toggle, []bool{A, D, A, D, A, D}, "start,stop,start"},
		{"toggle mode, activations only", choice.Toggle, []bool{A, A, A}, "start,stop,start"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := hotkey.New(hotkey.Config{Record: "ctrl+win", Mode: tt.mode}, testlog.New(t, 0), noKeys{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var h Hold
			var got []string
			for _, s := range tt.signals {
				if err := l.Command(h.Signal(s)); err != nil {
					t.Fatal(err)
				}
			drain:
				for {
					select {
					case e := <-l.Events():
						got = append(got, e.Kind.String())
					case <-time.After(100 * time.Millisecond):
						break drain
					}
				}
			}
			if g := strings.Join(got, ","); g != tt.want {
				t.Errorf("events %s, want %s", g, tt.want)
			}
		})
	}
}
