package config

import (
	"strings"
	"testing"
)

// FuzzParse reads arbitrary config files: parsing never panics, and a config
// it accepts is complete (defaults fill what the file leaves out).
func FuzzParse(f *testing.F) {
	f.Add([]byte("model: small\nhotkeys:\n  record: ctrl+shift+space\n"))
	f.Add([]byte("audio:\n  min_duration: 0.3\n  max_duration: 5m\nsounds: off\n"))
	f.Add([]byte("hotwords: [a, b]\npaste: clipboard\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte("model: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := parse("config.yaml", data, Options{})
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error")
			}
			return
		}
		if cfg.LogLevel == "" || cfg.Paste == "" || cfg.Hotkeys.Record == "" {
			t.Fatalf("accepted config lacks defaults: %+v", cfg)
		}
	})
}
