package main

import (
	"os"
	"path/filepath"
)

// configHelpPath is the settings reference the tray's "Settings help" entry
// opens: docs/configuration.md beside the exe (the installer puts it there)
// or in the source tree, else the online copy at its "Your words" section.
// A local file opens without the anchor: editors and viewers ignore one.
func configHelpPath() string {
	if exe, err := os.Executable(); err == nil {
		for _, p := range []string{
			filepath.Join(filepath.Dir(exe), "docs", "configuration.md"),
			filepath.Join(filepath.Dir(exe), "..", "docs", "configuration.md"),
		} {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return "https://github.com/whisperkey/whisperkey/blob/main/docs/configuration.md#your-words"
}
