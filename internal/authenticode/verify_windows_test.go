package authenticode

import (
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// Under wine (scripts/wine-test.sh): the test binary itself is unsigned.
// TestWine checks a signed program (the installed whisperkey.exe's doctor).
func TestVerifyUnsigned(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(exe); !errors.Is(err, ErrUnsigned) {
		t.Fatalf("Verify(the test binary) = %v, want ErrUnsigned", err)
	}
	if _, err := Read(exe); !errors.Is(err, ErrUnsigned) {
		t.Fatalf("Read(the test binary) = %v, want ErrUnsigned", err)
	}
}

func TestTrustError(t *testing.T) {
	tests := []struct {
		name string
		in   error
		want string // substring; "" for nil
	}{
		{"trusted", nil, ""},
		{"no signature", windows.Errno(windows.TRUST_E_NOSIGNATURE), ErrUnsigned.Error()},
		{"changed after signing", windows.Errno(windows.TRUST_E_BAD_DIGEST), "changed after it was signed"},
		{"self-signed", windows.Errno(windows.CERT_E_UNTRUSTEDROOT), "not from an authority Windows trusts"},
		{"unknown code", windows.Errno(0x800b0042), "WinVerifyTrust 0x800b0042"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := trustError(tt.in)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("trustError(nil) = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("trustError(%v) = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}
