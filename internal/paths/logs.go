package paths

import (
	"errors"
	"os"
	"path"
	"runtime"
	"strings"
)

// LogDir is the per-user log directory: %LOCALAPPDATA%\whisperkey\logs on
// Windows, ~/Library/Logs/whisperkey on macOS and
// $XDG_STATE_HOME/whisperkey/logs (default ~/.local/state) elsewhere.
func LogDir() (string, error) {
	return logDirFor(runtime.GOOS, os.Getenv, userHome())
}

// logDirFor is LogDir for any OS, so every OS's rule is tested everywhere.
func logDirFor(goos string, getenv func(string) string, home string) (string, error) {
	switch goos {
	case "windows":
		if base := getenv("LOCALAPPDATA"); base != "" {
			return winJoin(base, "whisperkey", "logs"), nil
		}
		if home == "" {
			return "", errors.New("find the log directory: neither LOCALAPPDATA nor the home directory is set")
		}
		return winJoin(home, "AppData", "Local", "whisperkey", "logs"), nil
	case "darwin":
		if home == "" {
			return "", errors.New("find the log directory: HOME is not set")
		}
		return path.Join(home, "Library", "Logs", "whisperkey"), nil
	default:
		// The XDG spec says relative values are invalid and must be ignored.
		if base := getenv("XDG_STATE_HOME"); strings.HasPrefix(base, "/") {
			return path.Join(base, "whisperkey", "logs"), nil
		}
		if home == "" {
			return "", errors.New("find the log directory: neither XDG_STATE_HOME nor HOME is set")
		}
		return path.Join(home, ".local", "state", "whisperkey", "logs"), nil
	}
}

// winJoin joins Windows path elements whatever OS the code runs on.
func winJoin(elem ...string) string {
	parts := make([]string, 0, len(elem))
	for i, e := range elem {
		if i > 0 {
			e = strings.TrimLeft(e, `\/`)
		}
		if e = strings.TrimRight(e, `\/`); e != "" {
			parts = append(parts, e)
		}
	}
	return strings.Join(parts, `\`)
}
