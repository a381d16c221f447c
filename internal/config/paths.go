package config

import (
	"errors"
	"os"
	"runtime"
	"strings"
)

// Path returns the per-user config file: %APPDATA%\whisperkey\config.yaml on
// Windows, ~/Library/Application Support/whisperkey/config.yaml on macOS and
// $XDG_CONFIG_HOME/whisperkey/config.yaml (default ~/.config) elsewhere.
func Path() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // pathFor may not need it (APPDATA, XDG_CONFIG_HOME)
	}
	return pathFor(runtime.GOOS, os.Getenv, home)
}

// pathFor is Path for any OS, so every OS's rule is tested on every OS.
func pathFor(goos string, env func(string) string, home string) (string, error) {
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	join := func(parts ...string) string {
		for i := range parts {
			parts[i] = strings.TrimRight(parts[i], `/\`)
		}
		return strings.Join(append(parts, "whisperkey", "config.yaml"), sep)
	}
	noHome := errors.New("cannot find the config folder: the home directory is unknown (set HOME)")
	switch goos {
	case "windows":
		if d := env("APPDATA"); d != "" {
			return join(d), nil
		}
		if home == "" {
			return "", errors.New("cannot find the config folder: APPDATA is not set")
		}
		return join(home, "AppData", "Roaming"), nil
	case "darwin":
		if home == "" {
			return "", noHome
		}
		return join(home, "Library", "Application Support"), nil
	}
	// XDG: a relative XDG_CONFIG_HOME is invalid and must be ignored.
	if d := env("XDG_CONFIG_HOME"); strings.HasPrefix(d, "/") {
		return join(d), nil
	}
	if home == "" {
		return "", noHome
	}
	return join(home, ".config"), nil
}
