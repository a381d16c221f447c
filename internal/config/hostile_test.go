package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/config"
)

// A config file is read in time linear in its size up to a cap, and a file
// over the cap is refused with a clear error: 128K unknown keys once took
// 41 s and a 10 MB file more than 14 minutes (issue 27 item 7).
func TestConfigSizeBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, keys int) string {
		var b strings.Builder
		b.WriteString("model: base\n")
		for i := range keys {
			fmt.Fprintf(&b, "unknown_key_%d: %d\n", i, i)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Just under the cap: accepted, unknown keys summarised, quickly.
	under := write("under.yaml", 10_000)
	if st, _ := os.Stat(under); st.Size() > config.MaxFileSize {
		t.Fatalf("test file of %d bytes is over the cap", st.Size())
	}
	start := time.Now()
	_, warns, err := config.Load(under, config.Options{})
	took := time.Since(start)
	if err != nil || len(warns) > 60 || !strings.Contains(warns[len(warns)-1].String(), "more unknown keys") {
		t.Fatalf("10000 unknown keys: err %v, %d warnings", err, len(warns))
	}
	// Generous, to catch only a return of superlinear work.
	if took > 10*time.Second {
		t.Fatalf("10000 unknown keys took %s", took)
	}
	over := write("over.yaml", 20_000)
	if _, _, err := config.Load(over, config.Options{}); !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "larger than 256 KiB") {
		t.Fatalf("a file over the cap: %v", err)
	}
}

// Several YAML documents in one file are refused: the later ones were ignored.
func TestConfigSeveralDocumentsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(p, []byte("model: base\n---\nmodel: small\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := config.Load(p, config.Options{})
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "several YAML documents") || !strings.Contains(err.Error(), "two.yaml:2") {
		t.Fatalf("two documents: %v", err)
	}
}
