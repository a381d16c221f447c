package main

import (
	"fmt"
	"io"
	"os"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// configOptions validate what only other packages understand.
func configOptions() config.Options {
	return config.Options{ValidateHotkey: hotkey.Validate}
}

func runConfig(args []string, stdout, stderr io.Writer) error {
	var path string
	if len(args) == 2 && args[0] == "validate" {
		// validate FILE checks that file, say a config before it is installed.
		path, args = args[1], args[:1]
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			return usageError{fmt.Sprintf("config validate %s: no such file; give the path of a config file", path)}
		}
	} else {
		p, err := configPath()
		if err != nil {
			return err
		}
		path = p
	}
	switch config.RunCLI(args, stdout, stderr, path, configOptions()) {
	case 0:
		return nil
	case 2:
		return usageError{"see `whisperkey config` for usage"}
	default:
		return errSilent
	}
}

// configPath is $WHISPERKEY_CONFIG or the per-user config file.
func configPath() (string, error) {
	if p := envOr("WHISPERKEY_CONFIG", ""); p != "" {
		return p, nil
	}
	p, err := config.Path()
	if err != nil {
		return "", fmt.Errorf("find the config file: %w", err)
	}
	return p, nil
}
