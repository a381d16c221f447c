package session

import (
	"context"
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The registry probe against a real compositor: headless sway offers the
// protocols the Wayland routes need.
func TestGlobalsOfSway(t *testing.T) {
	s := testenv.StartSway(t, "")
	got, err := Globals(context.Background(), s.Socket())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wl_seat", ifaceVirtualKeyboard, ifaceDataControlWlr, ifaceLayerShell} {
		if !slices.Contains(got, want) {
			t.Errorf("sway's globals %v lack %s", got, want)
		}
	}
	env := map[string]string{"WAYLAND_DISPLAY": s.Display, "XDG_RUNTIME_DIR": s.RuntimeDir, "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "sway"}
	f := Probe(context.Background(), func(k string) string { return env[k] })
	r := Evaluate(f)
	if r.Type != Wayland || r.Desktop != Sway {
		t.Fatalf("probed %s/%s, want wayland/sway", r.Type, r.Desktop)
	}
	for _, rt := range r.Routes {
		if (rt.Name == RouteDataControl || rt.Name == RouteLayerShell) && !rt.Used {
			t.Errorf("%s not used on sway: %s", rt.Name, rt.Note)
		}
	}
}
