package desktop

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// recordingParts notes which part was handed which settings.
type recordingParts struct {
	calls    []string
	hotkeyOK func(hotkey.Config) error
}

func (r *recordingParts) parts() parts {
	return parts{app: appFunc(func(c app.Config) { r.calls = append(r.calls, "app "+c.MinDuration.String()) }),
		hotkeys: hotkeyFunc(func(c hotkey.Config) error {
			r.calls = append(r.calls, "hotkeys "+c.Record)
			if r.hotkeyOK != nil {
				return r.hotkeyOK(c)
			}
			return nil
		}),
		mic: micFunc(func(c audio.Config) error {
			r.calls = append(r.calls, "mic "+c.Device+" "+c.PreRoll.String())
			return nil
		}),
		paste: pasteFunc(func(m choice.PasteMode) error {
			r.calls = append(r.calls, "paste "+string(m))
			return nil
		}),
		settings: func(config.Config) { r.calls = append(r.calls, "settings") },
	}
}

type (
	appFunc    func(app.Config)
	hotkeyFunc func(hotkey.Config) error
	micFunc    func(audio.Config) error
	pasteFunc  func(choice.PasteMode) error
)

func (f appFunc) Reconfigure(c app.Config)             { f(c) }
func (f hotkeyFunc) Reconfigure(c hotkey.Config) error { return f(c) }
func (f micFunc) Reconfigure(c audio.Config) error     { return f(c) }
func (f pasteFunc) SetMode(m choice.PasteMode) error   { return f(m) }

func TestReconfigure(t *testing.T) {
	base := config.Defaults()
	with := func(edit func(*config.Config)) config.Config {
		c := base
		edit(&c)
		return c
	}
	taken := errors.New("ctrl+alt+q is already taken by another application")
	tests := []struct {
		name     string
		to       config.Config
		hotkeyOK func(hotkey.Config) error
		want     []string
		wantErr  string
	}{
		{name: "nothing changed", to: base, want: []string{"settings"}},
		{name: "decoding only", to: with(func(c *config.Config) { c.Decode.Language = "de" }), want: []string{"settings"}},
		{name: "min_duration is live", to: with(func(c *config.Config) { c.Audio.MinDuration = time.Second }),
			want: []string{"settings", "app 1s"}},
		{name: "sounds are live", to: with(func(c *config.Config) { c.Sounds = false }), want: []string{"settings", "app 300ms"}},
		{name: "paste mode", to: with(func(c *config.Config) { c.Paste = choice.Clipboard }),
			want: []string{"settings", "paste clipboard"}},
		{name: "microphone", to: with(func(c *config.Config) { c.Audio.InputDevice = "USB mic" }),
			want: []string{"settings", "mic USB mic 0s"}},
		{name: "pre-roll on", to: with(func(c *config.Config) { c.Audio.PreRoll = true }),
			want: []string{"settings", "mic  500ms"}},
		{name: "hotkey", to: with(func(c *config.Config) { c.Hotkeys.Record = "ctrl+alt+r" }),
			want: []string{"settings", "hotkeys ctrl+alt+r"}},
		{name: "a taken hotkey goes back to the old one", to: with(func(c *config.Config) { c.Hotkeys.Record = "ctrl+alt+q" }),
			hotkeyOK: func(c hotkey.Config) error {
				if c.Record == "ctrl+alt+q" {
					return taken
				}
				return nil
			},
			want: []string{"settings", "hotkeys ctrl+alt+q", "hotkeys ctrl+win"}, wantErr: "already taken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recordingParts{hotkeyOK: tt.hotkeyOK}
			err := reconfigure(base, tt.to, r.parts())
			if !slices.Equal(r.calls, tt.want) {
				t.Errorf("calls %q, want %q", r.calls, tt.want)
			}
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
