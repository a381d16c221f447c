//go:build !windows && !darwin

package autostart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/autostart"
)

// isolate points the autostart folder at a temporary one.
func isolate(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// entryExe reads the program back out of the desktop entry's Exec key, undoing its
// escaping as a desktop session would; "" when there is no entry.
func entryExe(t *testing.T, a *autostart.Autostart) string {
	t.Helper()
	b, err := os.ReadFile(a.Where())
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(a.Where())
	if st.Mode().Perm() != 0o644 {
		t.Errorf("entry mode %v, want 0644", st.Mode().Perm())
	}
	for _, line := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(line, "Exec=")
		if !ok {
			continue
		}
		v = strings.ReplaceAll(v, `\\`, `\`) // string-level escape
		if strings.HasPrefix(v, `"`) {
			v = strings.TrimSuffix(strings.TrimPrefix(v, `"`), `"`)
			for _, c := range []string{`"`, "`", "$", `\`} {
				v = strings.ReplaceAll(v, `\`+c, c)
			}
		}
		return strings.ReplaceAll(v, "%%", "%")
	}
	t.Fatalf("no Exec line in %s:\n%s", a.Where(), b)
	return ""
}

func TestDesktopEntry(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	a, err := autostart.New("/opt/whisper key/100% \"$weird\"/whisperkey")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "autostart", autostart.FileName); a.Where() != want {
		t.Errorf("entry at %s, want %s", a.Where(), want)
	}
	if err := a.Set(true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(a.Where())
	for _, want := range []string{"[Desktop Entry]\n", "Type=Application\n", "Name=WhisperKey\n",
		`Exec="/opt/whisper key/100%% \\"\\$weird\\"/whisperkey"` + "\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("entry lacks %q:\n%s", want, b)
		}
	}
	if got := entryExe(t, a); got != "/opt/whisper key/100% \"$weird\"/whisperkey" {
		t.Errorf("Exec reads back as %q", got)
	}
}

// An entry the user switched off in the desktop's settings counts as off.
func TestSwitchedOffInSettings(t *testing.T) {
	for _, line := range []string{"Hidden=true", "X-GNOME-Autostart-enabled=false"} {
		t.Run(line, func(t *testing.T) {
			isolate(t)
			a, err := autostart.New("/usr/bin/whisperkey")
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Set(true); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(a.Where())
			s := strings.Replace(string(b), "X-GNOME-Autostart-enabled=true\n", "", 1) + line + "\n"
			if err := os.WriteFile(a.Where(), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			if on, err := a.Enabled(); on || err != nil {
				t.Errorf("Enabled() = %v, %v with %s; want off", on, err, line)
			}
		})
	}
}

func TestRelativeXDGConfigHomeIgnored(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	a, err := autostart.New("/usr/bin/whisperkey")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".config", "autostart", autostart.FileName); a.Where() != want {
		t.Errorf("entry at %s, want %s", a.Where(), want)
	}
}
