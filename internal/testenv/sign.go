package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SignedCopy writes to dst a copy of the Windows program src signed by
// scripts/sign.sh with a throwaway certificate made for the test, as the
// release's signing step signs with the real one.
func SignedCopy(t testing.TB, src, dst string) {
	t.Helper()
	script := filepath.Join(RepoRoot(t), "scripts", "sign.sh")
	certs := filepath.Join(t.TempDir(), "cert")
	Run(t, nil, "bash", script, "throwaway", certs)
	pass, err := os.ReadFile(filepath.Join(certs, "password"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	Run(t, []string{"WHISPERKEY_SIGN_PFX=" + filepath.Join(certs, "cert.pfx"), "WHISPERKEY_SIGN_PASSWORD=" + string(pass)},
		"bash", script, "sign", dst)
}

// Run runs name with args, env added to the test's environment, and fails
// the test with the output when it fails.
func Run(t testing.TB, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
