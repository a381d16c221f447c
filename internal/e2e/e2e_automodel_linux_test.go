//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/models/hubtest"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The first start on model: auto says in the tray which model it chose
// and why: the model for this computer is not downloaded, and the one that
// is stands in. The Model menu's Auto item, checked, says the same.
func TestFirstStartSaysWhichModel(t *testing.T) {
	desktopSession(t)
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-tiny.en": testenv.Model(t, "tiny.en")})
	defer hub.Close()
	home := t.TempDir()
	cache := filepath.Join(home, "cache")
	pull := exec.Command(binary(t), "models", "pull", "tiny.en")
	pull.Env = append(os.Environ(), "WHISPERKEY_CACHE="+cache, "HF_ENDPOINT="+hub.URL)
	if r := runCmd(t, pull); r.code != 0 {
		t.Fatalf("models pull: exit %d: %s", r.code, r.stderr)
	}
	// No network now: auto must start on what is there.
	a, _ := launchApp(t, "model: auto\nhotkeys:\n  record: ctrl+shift+f9\n", "WHISPERKEY_CACHE="+cache, "HF_ENDPOINT=http://127.0.0.1:1")
	status := a.waitStatus(t, "· ready", 120*time.Second)
	t.Logf("first start: %q", status)
	if !strings.Contains(status, "Using tiny.en (") || !strings.Contains(status, " not downloaded; tiny.en found)") {
		t.Errorf("status %q does not say it uses tiny.en because the model for this computer is not downloaded", status)
	}
	models := a.submenu(t, "Model")
	first := models.Shown()[0]
	if !strings.HasPrefix(first.Label, "Auto: tiny.en (") || !first.Checked {
		t.Errorf("Model menu = %q (first checked: %v), want Auto checked, naming tiny.en", models.Labels(), first.Checked)
	}
	for _, n := range models.Shown()[1:] {
		if n.Checked {
			t.Errorf("%q is checked beside Auto", n.Label)
		}
	}
}
