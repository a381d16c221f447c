package traytest

import "testing"

func TestUnmnemonic(t *testing.T) {
	for in, want := range map[string]string{"int8__float32": "int8_float32", "_Quit": "Quit", "CPU": "CPU", "a__b_c": "a_bc"} {
		if got := unmnemonic(in); got != want {
			t.Errorf("unmnemonic(%q) = %q, want %q", in, got, want)
		}
	}
}
