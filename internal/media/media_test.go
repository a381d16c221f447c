package media

import (
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/choice"
)

func TestUserChanged(t *testing.T) {
	lowered := player{volume: 0.8, set: 0.16}
	tests := []struct {
		name    string
		mode    choice.MediaMode
		changed map[string]dbus.Variant
		want    bool
	}{
		{"our pause", choice.MediaPause, map[string]dbus.Variant{"PlaybackStatus": dbus.MakeVariant("Paused")}, false},
		{"user played it", choice.MediaPause, map[string]dbus.Variant{"PlaybackStatus": dbus.MakeVariant("Playing")}, true},
		{"user stopped it", choice.MediaPause, map[string]dbus.Variant{"PlaybackStatus": dbus.MakeVariant("Stopped")}, true},
		{"another property", choice.MediaPause, map[string]dbus.Variant{"Metadata": dbus.MakeVariant(map[string]dbus.Variant{})}, false},
		{"our volume", choice.MediaLower, map[string]dbus.Variant{"Volume": dbus.MakeVariant(0.16)}, false},
		{"our volume, rounded by the player", choice.MediaLower, map[string]dbus.Variant{"Volume": dbus.MakeVariant(0.165)}, false},
		{"user set the volume", choice.MediaLower, map[string]dbus.Variant{"Volume": dbus.MakeVariant(0.5)}, true},
		{"lower ignores a pause", choice.MediaLower, map[string]dbus.Variant{"PlaybackStatus": dbus.MakeVariant("Paused")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := userChanged(tt.mode, lowered, tt.changed); got != tt.want {
				t.Errorf("userChanged = %v, want %v", got, tt.want)
			}
		})
	}
}
