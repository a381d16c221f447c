package backend

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/whisperkey/whisperkey/internal/authenticode"
)

// The Signature line, right under the title, for each state doctor can find
// on Windows; nothing on other systems.
func TestDoctorPrintSignature(t *testing.T) {
	tests := []struct {
		name string
		sig  *authenticode.Status
		want string // regexp for the second line; "" for none
	}{
		{"not Windows", nil, ""},
		{"trusted", &authenticode.Status{Signed: true, Trusted: true, Signer: "WhisperKey contributors", Issuer: "Some CA"},
			`^Signature: ✔ signed by WhisperKey contributors \(issued by Some CA\), trusted by Windows$`},
		{"self-signed", &authenticode.Status{Signed: true, Signer: "Test", Issuer: "Test", Problem: "its certificate is not from an authority Windows trusts"},
			`^Signature: ✘ signed by Test \(issued by Test\), but Windows does not trust it: its certificate is not from an authority Windows trusts$`},
		{"unsigned", &authenticode.Status{Problem: "not signed: a developer's build"},
			`^Signature: ✘ not signed: a developer's build$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			DoctorReport{Version: "v1", Platform: "windows/amd64", Signature: tt.sig}.Print(&b)
			lines := bytes.Split(b.Bytes(), []byte("\n"))
			if tt.want == "" {
				if len(lines[1]) != 0 {
					t.Fatalf("second line %q, want the blank line after the title", lines[1])
				}
				return
			}
			if !regexp.MustCompile(tt.want).Match(lines[1]) {
				t.Fatalf("second line %q, want %s", lines[1], tt.want)
			}
		})
	}
}

// On gfx1010 doctor says why the compute type is what it is, and the
// self-test line names the compute type it ran.
func TestDoctorPrintComputeType(t *testing.T) {
	r := DoctorReport{Version: "v1", Platform: "windows/amd64",
		Engine: &EngineReport{Variant: "rocm-rdna1", Device: "cuda", ComputeType: "float16", ModelDir: "small",
			ComputeNote: "float16: int8 failed the self-test on this card (slower than the CPU)"},
		SelfTest: &SelfTest{OK: true, AudioSeconds: 6.2, Seconds: 0.5, Text: "Remember to buy milk.", ComputeType: "float16"}}
	var b bytes.Buffer
	r.Print(&b)
	for _, want := range []string{
		"\nEngine: rocm-rdna1 variant, cuda float16, model small (loaded in 0 ms)\n  compute type float16: int8 failed the self-test on this card (slower than the CPU)\n",
		"\nSelf-test: ✔ 6.2 s of speech in 0.50 s (0.08× real time, float16): \"Remember to buy milk.\"\n",
	} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("doctor output lacks %q:\n%s", want, b.String())
		}
	}
}
