package engine

import (
	"fmt"
	"strings"
	"testing"
)

// A native crash prints its cause first and then kilobytes of registers and
// stack: the summary keeps the cause, not "gs 0x0" (issue 27 item 8).
func TestCrashReportKeepsFatalLine(t *testing.T) {
	cases := []struct {
		name  string
		first string
	}{
		{"Go runtime on a signal in C", "SIGSEGV: segmentation violation"},
		{"Go fatal error", "fatal error: unexpected signal during runtime execution"},
		{"C++ abort", "terminate called after throwing an instance of 'std::bad_alloc'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o outputRing
			o.add("loading model")
			o.add(tc.first)
			o.add("PC=0x7f0000 m=0 sigcode=1 addr=0x0")
			for i := range 2000 {
				o.add(fmt.Sprintf("r%d    0x%016x", i%16, i))
			}
			o.add("gs     0x0")
			out := o.String()
			lines := strings.Split(out, "\n")
			if !strings.Contains(out, tc.first) || lines[len(lines)-1] != "gs     0x0" || len(out) > 3*tailMax {
				t.Fatalf("output of %d bytes lacks %q or the last line (starts %q)", len(out), tc.first, lines[0])
			}
			var picked string
			for _, l := range lines {
				if isCrashLine(l) {
					picked = l
					break
				}
			}
			if picked != tc.first {
				t.Fatalf("summary line %q, want %q", picked, tc.first)
			}
		})
	}
	// Ordinary output stays as it was: the tail only.
	var o outputRing
	o.add("a")
	o.add("b")
	if got := o.String(); got != "a\nb" {
		t.Fatalf("plain output: %q", got)
	}
}
