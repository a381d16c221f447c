package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Path returns the per-user config file: %APPDATA%\whisperkey\config.yaml on
// Windows, ~/Library/Application Support/whisperkey/config.yaml on macOS and
// $XDG_CONFIG_HOME/whisperkey/config.yaml (default ~/.config) elsewhere.
func Path() (string, error) {
	return pathFor(runtime.GOOS, os.Getenv, userHome())
}

// StateDir returns the per-user folder for what the app keeps and the user
// would miss (the kept Recent dictations, GPU verdicts), apart from the
// cache, which may be cleared: %LOCALAPPDATA%\whisperkey on Windows,
// ~/Library/Application Support/whisperkey on macOS and
// $XDG_STATE_HOME/whisperkey (default ~/.local/state) elsewhere.
func StateDir() (string, error) {
	return statePlace.dir(runtime.GOOS, os.Getenv, userHome())
}

// CacheDir returns the per-user folder for what can be fetched or built
// again (models, the speech detector, downloads): $WHISPERKEY_CACHE when set,
// else whisperkey in the OS's cache folder (%LOCALAPPDATA% on Windows,
// ~/Library/Caches on macOS, $XDG_CACHE_HOME or ~/.cache elsewhere). The
// project's scripts use the same rule.
func CacheDir() (string, error) {
	if d := os.Getenv("WHISPERKEY_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the per-user cache folder (set WHISPERKEY_CACHE): %w", err)
	}
	return filepath.Join(base, "whisperkey"), nil
}

func userHome() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return "" // the environment may name the folder anyway
	}
	return home
}

// pathFor is Path for any OS, so every OS's rule is tested on every OS.
func pathFor(goos string, env func(string) string, home string) (string, error) {
	dir, err := configPlace.dir(goos, env, home)
	if err != nil {
		return "", err
	}
	return dir + separator(goos) + "config.yaml", nil
}

// place is where one kind of per-user folder lives on each OS.
type place struct {
	what       string   // for errors: "config", "state"
	winVar     string   // the Windows variable naming its parent
	winDefault []string // its parent below the home folder when that is unset
	macDefault []string
	xdgVar     string // XDG: a relative value is invalid and ignored
	xdgDefault []string
}

var (
	configPlace = place{what: "config", winVar: "APPDATA", winDefault: []string{"AppData", "Roaming"},
		macDefault: []string{"Library", "Application Support"}, xdgVar: "XDG_CONFIG_HOME", xdgDefault: []string{".config"}}
	statePlace = place{what: "state", winVar: "LOCALAPPDATA", winDefault: []string{"AppData", "Local"},
		macDefault: []string{"Library", "Application Support"}, xdgVar: "XDG_STATE_HOME", xdgDefault: []string{".local", "state"}}
)

func separator(goos string) string {
	if goos == "windows" {
		return `\`
	}
	return "/"
}

// dir is the place's whisperkey folder on goos.
func (p place) dir(goos string, env func(string) string, home string) (string, error) {
	join := func(parts ...string) string {
		for i := range parts {
			parts[i] = strings.TrimRight(parts[i], `/\`)
		}
		return strings.Join(append(parts, "whisperkey"), separator(goos))
	}
	noHome := fmt.Errorf("cannot find the %s folder: the home directory is unknown (set HOME)", p.what)
	switch goos {
	case "windows":
		if d := env(p.winVar); d != "" {
			return join(d), nil
		}
		if home == "" {
			return "", fmt.Errorf("cannot find the %s folder: %s is not set", p.what, p.winVar)
		}
		return join(append([]string{home}, p.winDefault...)...), nil
	case "darwin":
		if home == "" {
			return "", noHome
		}
		return join(append([]string{home}, p.macDefault...)...), nil
	}
	if d := env(p.xdgVar); strings.HasPrefix(d, "/") {
		return join(d), nil
	}
	if home == "" {
		return "", noHome
	}
	return join(append([]string{home}, p.xdgDefault...)...), nil
}
