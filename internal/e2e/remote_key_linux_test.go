//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue 34 item 6, through the real binary: a remote key with the newline
// a file leaves (--api-key "$(cat key)" keeps none, but a key file read by
// other means, or a variable set from one, does) is trimmed by the client
// as serve trims its own; before, Go's client refused the header. A key
// with a space inside is refused before anything is sent, naming the flag.
// Without either, the config's remote.api_key is sent.
func TestRemoteKeyTrimmed(t *testing.T) {
	const key = "sk-remote-newline-0c2d"
	const said = "Remember to buy milk, bread and eggs on the way home."
	srv := startServe(t, "--api-key", key)
	wav := speechWAV(t, said)
	cfgWithKey := filepath.Join(t.TempDir(), "config.yaml")
	writeConfig(t, cfgWithKey, "remote:\n  api_key: "+key+"\n")
	run := func(env string, args ...string) result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary(t), append([]string{"transcribe", "--remote", srv.url, "--language", "en", wav}, args...)...)
		cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)), "WHISPERKEY_REMOTE_API_KEY="+env)
		return runCmd(t, cmd)
	}
	for _, tc := range []struct {
		name string
		env  string
		args []string
	}{
		{"--api-key ending in a newline", "", []string{"--api-key", key + "\n"}},
		{"WHISPERKEY_REMOTE_API_KEY ending in CR LF", key + "\r\n", nil},
		// The config's remote.api_key, as the tray sends it (issue 48: the
		// variable is that key's override, read once, by the config).
		{"the config's remote.api_key", "", []string{"--config", cfgWithKey}},
	} {
		r := run(tc.env, tc.args...)
		if r.code != 0 || whisper.WordErrorRate(said, r.stdout) > 0.15 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want the text", tc.name, r.code, r.stdout, r.stderr)
		}
	}
	r := run("", "--api-key", "sk-remote newline")
	if r.code != 2 || !strings.Contains(r.stderr, "--api-key") || !strings.Contains(r.stderr, "whitespace") || strings.Contains(r.stderr, "sk-remote") {
		t.Errorf("a key with a space inside: exit %d, stderr %q; want exit 2 naming --api-key, and not the key", r.code, r.stderr)
	}
}
