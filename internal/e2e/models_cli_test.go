package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// After `make model` (scripts/model.sh) the CLI finds the model by its name,
// and with no --model it uses the config's model, as its --help says.
func TestCLIFindsModelsByName(t *testing.T) {
	testenv.Model(t, "tiny.en") // make model has run, so its wheels are cached
	cache := t.TempDir()
	if err := os.Symlink(filepath.Join(testenv.Cache(), "wheels"), filepath.Join(cache, "wheels")); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("bash", filepath.Join(testenv.RepoRoot(t), "scripts", "model.sh"), "tiny.en")
	sh.Env = append(os.Environ(), "WHISPERKEY_CACHE="+cache)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("model.sh: %v\n%s", err, out)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("model: tiny.en\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WHISPERKEY_CACHE", cache)
	t.Setenv("WHISPERKEY_CONFIG", cfg)
	const said = "The coffee machine on the second floor is broken again."
	wav := speechWAV(t, said)
	want := filepath.Join(cache, "models", "Systran--faster-whisper-tiny.en")
	for _, args := range [][]string{{"transcribe", "--json", wav}, {"transcribe", "--json", "--model", "tiny.en", wav}} {
		r := whisperkey(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		var j struct {
			Text  string `json:"text"`
			Model string `json:"model"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
			t.Fatalf("%v: JSON: %v\n%s", args, err, r.stdout)
		}
		if j.Model != want {
			t.Errorf("%v used %s, want the cached %s", args, j.Model, want)
		}
		if wer := whisper.WordErrorRate(said, j.Text); wer > 0.2 {
			t.Errorf("%v: WER %.2f %q", args, wer, j.Text)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "models", "whisper-tiny.en", "model.bin")); err != nil {
		t.Errorf("the tests' path to the model is gone: %v", err)
	}
	r := whisperkey(t, "transcribe", "--model", "base.en", wav)
	if r.code != 2 || !strings.Contains(r.stderr, "whisperkey models pull base.en") {
		t.Errorf("a model not downloaded: exit %d, stderr %q; want exit 2 naming the fix", r.code, r.stderr)
	}
}
