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
