package autostart_test

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/windows/registry"

	"github.com/whisperkey/whisperkey/internal/autostart"
)

// isolate keeps a value that was there before the test (a real installation's) and
// puts it back afterwards.
func isolate(t *testing.T) {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, autostart.RunKey, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	old, _, err := k.GetStringValue(autostart.Name)
	had := err == nil
	t.Cleanup(func() {
		k, err := registry.OpenKey(registry.CURRENT_USER, autostart.RunKey, registry.SET_VALUE)
		if err != nil {
			t.Error(err)
			return
		}
		defer k.Close()
		if had {
			k.SetStringValue(autostart.Name, old)
		} else {
			k.DeleteValue(autostart.Name)
		}
	})
}

// entryExe reads the program from the Run value, which holds it quoted; "" when absent.
func entryExe(t *testing.T, _ *autostart.Autostart) string {
	t.Helper()
	k, err := registry.OpenKey(registry.CURRENT_USER, autostart.RunKey, registry.QUERY_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	v, typ, err := k.GetStringValue(autostart.Name)
	if errors.Is(err, registry.ErrNotExist) {
		return ""
	}
	if err != nil || typ != registry.SZ || !strings.HasPrefix(v, `"`) || !strings.HasSuffix(v, `"`) {
		t.Fatalf("Run value %q (type %d), %v; want a quoted path as REG_SZ", v, typ, err)
	}
	return strings.Trim(v, `"`)
}
