package configtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
)

// Load writes yaml to a config file in a temporary folder and loads it as
// the app would, failing the test on any error.
func Load(t testing.TB, yaml string) config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(path, config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
