//go:build !windows

// It builds and signs a program with Linux tools (mingw-w64, osslsigncode).

package authenticode

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// signedPE builds a small Windows program with mingw-w64 and signs a copy
// with scripts/sign.sh's throwaway certificate, as make test signs the
// release files: it returns the unsigned and the signed program.
func signedPE(t *testing.T) (unsigned, signed string) {
	t.Helper()
	for _, tool := range []string{"x86_64-w64-mingw32-gcc", "osslsigncode", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "make deps (scripts/deps.sh)")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.c")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unsigned, signed = filepath.Join(dir, "hello.exe"), filepath.Join(dir, "hello-signed.exe")
	testenv.Run(t, nil, "x86_64-w64-mingw32-gcc", "-o", unsigned, src)
	testenv.SignedCopy(t, unsigned, signed)
	return unsigned, signed
}

func TestRead(t *testing.T) {
	testenv.Short(t, "mingw-w64, openssl and osslsigncode")
	unsigned, signed := signedPE(t)
	dir := t.TempDir()
	write := testenv.FileWriter(t, dir)
	whole, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    Signer
		wantErr string // "" for success; ErrUnsigned's text for that sentinel
	}{
		{name: "signed", path: signed, want: Signer{Subject: "WhisperKey test signing (throwaway)",
			Issuer: "WhisperKey test signing (throwaway)", Organization: "WhisperKey tests"}},
		{name: "unsigned", path: unsigned, wantErr: ErrUnsigned.Error()},
		{name: "signature cut off", path: write("cut.exe", whole[:len(whole)-100]), wantErr: "past the end of the file"},
		{name: "not a program", path: write("notes.txt", []byte("hello\n")), wantErr: "not a Windows program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.path)
			switch {
			case tt.wantErr == ErrUnsigned.Error():
				if !errors.Is(err, ErrUnsigned) {
					t.Fatalf("Read = %+v, %v; want ErrUnsigned", got, err)
				}
			case tt.wantErr != "":
				if err == nil || errors.Is(err, ErrUnsigned) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Read = %+v, %v; want an error containing %q", got, err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			default:
				// The throwaway certificate is valid for two days from now.
				if time.Since(got.NotBefore) > time.Hour || time.Until(got.NotAfter) < 24*time.Hour {
					t.Errorf("validity %v – %v, want from about now for two days", got.NotBefore, got.NotAfter)
				}
				got.NotBefore, got.NotAfter = time.Time{}, time.Time{}
				if got != tt.want {
					t.Errorf("Read = %+v, want %+v", got, tt.want)
				}
			}
		})
	}
}
