package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ConfigFile returns the config file: $WHISPERKEY_CONFIG when set, else the
// per-user one, %APPDATA%\whisperkey\config.yaml on Windows,
// ~/Library/Application Support/whisperkey/config.yaml on macOS and
// $XDG_CONFIG_HOME/whisperkey/config.yaml (default ~/.config) elsewhere.
func ConfigFile() (string, error) {
	if p := os.Getenv("WHISPERKEY_CONFIG"); p != "" {
		return p, nil
	}
	p, err := pathFor(runtime.GOOS, os.Getenv, userHome())
	if err != nil {
		return "", fmt.Errorf("find the config file: %w", err)
	}
	return p, nil
}

// EngineRoot is the folder holding one engine folder per variant (cpu, cuda,
// rocm, rocm-rdna1): $WHISPERKEY_ENGINE_ROOT when set, else engine beside
// the executable, where the installer puts it.
func EngineRoot() (string, error) {
	if d := os.Getenv("WHISPERKEY_ENGINE_ROOT"); d != "" {
		return d, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable: %w", err)
	}
	return filepath.Join(filepath.Dir(exe), "engine"), nil
}

// VADDirs are where the speech detector's model and ONNX Runtime may be, in
// order: $WHISPERKEY_VAD_DIR alone when set, else vad beside the executable
// (installed), then vad in CacheDir, which scripts/vad.sh fills (development).
func VADDirs() []string {
	if d := os.Getenv("WHISPERKEY_VAD_DIR"); d != "" {
		return []string{d}
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "vad"))
	}
	if c, err := CacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(c, "vad"))
	}
	return dirs
}

// ModelsDir is the per-user model cache: models in CacheDir.
func ModelsDir() (string, error) {
	d, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "models"), nil
}

// StateDir returns the per-user folder for what the app keeps and the user
// would miss (the kept Recent dictations, GPU verdicts), apart from the
// cache, which may be cleared: %LOCALAPPDATA%\whisperkey on Windows,
// ~/Library/Application Support/whisperkey on macOS and
// $XDG_STATE_HOME/whisperkey (default ~/.local/state) elsewhere.
func StateDir() (string, error) {
	return statePlace.dir(runtime.GOOS, os.Getenv, userHome())
}

// TakesDir is where history.keep_audio_days keeps each take's recording,
// in the state folder stateDir (StateDir): the user's own, apart from the
// model cache that cleaners may empty.
func TakesDir(stateDir string) string { return filepath.Join(stateDir, "takes") }

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

// Home is the user's home folder, for a "~" the user wrote; "" when unknown.
func Home() string { return userHome() }

// RuntimeDir is $XDG_RUNTIME_DIR, the per-user folder for the single-instance
// lock and the control socket (Linux); "" when unset.
func RuntimeDir() string { return os.Getenv("XDG_RUNTIME_DIR") }

// AutostartDir is the XDG autostart folder (Linux and the BSDs):
// $XDG_CONFIG_HOME/autostart when that is absolute (the spec says to ignore
// a relative one), else ~/.config/autostart.
func AutostartDir() (string, error) {
	return autostartDirFor(os.Getenv("XDG_CONFIG_HOME"), os.Getenv("HOME"))
}

func autostartDirFor(xdg, home string) (string, error) {
	if filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "autostart"), nil
	}
	if home == "" {
		return "", fmt.Errorf("start at login: the home folder is unknown (set HOME)")
	}
	return filepath.Join(home, ".config", "autostart"), nil
}

func userHome() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return "" // the environment may name the folder anyway
	}
	return home
}

// pathFor is ConfigFile for any OS, so every OS's rule is tested on every OS.
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
