package tray

import (
	"runtime"
	"testing"
)

func TestMenuLabelEscapesMnemonics(t *testing.T) {
	cases := []struct{ name, in, linux, windows string }{
		{"compute type", "int8_float32", "int8__float32", "int8_float32"},
		{"ampersand", "R&D model", "R&D model", "R&&D model"},
		{"plain", "CPU", "CPU", "CPU"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.linux
			if runtime.GOOS == "windows" {
				want = tc.windows
			}
			if got := menuLabel(tc.in); got != want {
				t.Fatalf("menuLabel(%q) = %q, want %q", tc.in, got, want)
			}
		})
	}
}
