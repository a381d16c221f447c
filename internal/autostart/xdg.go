//go:build !windows && !darwin

package autostart

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// FileName is the desktop entry in the XDG autostart folder.
const FileName = "whisperkey.desktop"

// osEntry on Linux and the BSDs: $XDG_CONFIG_HOME/autostart/whisperkey.desktop
// (~/.config/autostart by default), which every XDG desktop starts at login.
type osEntry struct{ path string }

func newOSEntry() (osEntry, error) {
	dir, err := paths.AutostartDir()
	if err != nil {
		return osEntry{}, err
	}
	return osEntry{path: filepath.Join(dir, FileName)}, nil
}

func (e osEntry) where() string { return e.path }

// enabled: the file exists and neither hides itself nor is switched off by GNOME's key
// (what desktop settings panels write when the user turns an entry off).
func (e osEntry) enabled() (bool, error) {
	b, err := os.ReadFile(e.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("start at login: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Hidden":
			if strings.TrimSpace(v) == "true" {
				return false, nil
			}
		case "X-GNOME-Autostart-enabled":
			if strings.TrimSpace(v) == "false" {
				return false, nil
			}
		}
	}
	return true, nil
}

func (e osEntry) enable(exe string) error {
	if err := os.MkdirAll(filepath.Dir(e.path), 0o755); err != nil {
		return fmt.Errorf("start at login: %w", err)
	}
	entry := "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=" + Name + "\n" +
		"Comment=Push-to-talk dictation: hold a hotkey, speak, release\n" +
		"Exec=" + execArg(exe) + "\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
	tmp := e.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(entry), 0o644); err != nil {
		return fmt.Errorf("start at login: %w", err)
	}
	if err := os.Rename(tmp, e.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("start at login: %w", err)
	}
	return nil
}

func (e osEntry) disable() error {
	if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("start at login: %w", err)
	}
	return nil
}

// execArg writes path as one argument of a desktop entry's Exec key: quoted when it
// holds reserved characters, with ", `, $ and \ escaped inside the quotes, then
// backslashes doubled once more because the value is itself an escaped string, and
// % doubled because it starts a field code.
func execArg(path string) string {
	s := strings.ReplaceAll(path, "%", "%%")
	if !strings.ContainsAny(s, " \t\n\"'\\><~|&;$*?#()`=") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return strings.ReplaceAll(b.String(), `\`, `\\`)
}
