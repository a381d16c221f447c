package tray

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// OpenPath opens a file, folder or URL with the desktop's default handler
// (xdg-open on Linux, the URL protocol handler on Windows, open on macOS).
// It returns once the opener has handed the path on, which can take a moment:
// call it off the app's event loop.
func OpenPath(path string) error {
	return openPath(runtime.GOOS, path, func(name string, args ...string) error {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil && len(out) > 0 {
			return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
		}
		return err
	})
}

// openPath checks path and runs the opener for goos through run.
func openPath(goos, path string, run func(name string, args ...string) error) error {
	if path == "" {
		return errors.New("open: empty path")
	}
	if !isURL(path) {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("open %s: %w", path, err)
		}
	}
	name, args := openCommand(goos, path)
	if err := run(name, args...); err != nil {
		return fmt.Errorf("open %s with %s: %w", path, name, err)
	}
	return nil
}

// openCommand is the command that opens path on goos.
func openCommand(goos, path string) (string, []string) {
	switch goos {
	case "windows":
		// rundll32 hands the path to the shell without a console window or
		// cmd.exe's quoting rules ("start" would need both).
		return "rundll32", []string{"url.dll,FileProtocolHandler", path}
	case "darwin":
		return "open", []string{path}
	default:
		return "xdg-open", []string{path}
	}
}

func isURL(s string) bool {
	for _, scheme := range []string{"http://", "https://", "file://", "mailto:"} {
		if strings.HasPrefix(strings.ToLower(s), scheme) {
			return true
		}
	}
	return false
}
