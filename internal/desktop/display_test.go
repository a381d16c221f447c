package desktop

import (
	"errors"
	"testing"
)

func TestCheckDisplay(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		ok   bool
	}{
		{"X11", "linux", map[string]string{"DISPLAY": ":0"}, true},
		{"Wayland with XWayland", "linux", map[string]string{"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, true},
		{"Wayland alone: ptt and the Wayland paste", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"console", "linux", nil, false},
		{"Windows needs no variable", "windows", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDisplay(tt.goos, func(k string) string { return tt.env[k] })
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNoDisplay)) {
				t.Fatalf("CheckDisplay = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
