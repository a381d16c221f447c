package indicator

import (
	"io"
	"log/slog"
	"testing"
)

var (
	procIsWindowVisible = user32.NewProc("IsWindowVisible")
	procGetWindowLong   = user32.NewProc("GetWindowLongPtrW")
)

const gwlExStyle = ^uintptr(19) // GWL_EXSTYLE (-20)

// The window has the styles that keep it on top, out of the taskbar, never activated
// and transparent to the mouse; Show and Hide map and unmap it without touching the
// foreground window. It needs a desktop: on Windows, or under wine with an X display
// (scripts/testenv.sh wine PKG.test.exe; scripts/wine-test.sh runs without one).
func TestWindowsIndicatorWindow(t *testing.T) {
	ind, err := New(Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Close()
	hwnd := ind.os.(*osWindow).hwnd
	ex, _, _ := procGetWindowLong.Call(hwnd, gwlExStyle)
	for _, f := range []struct {
		name string
		bit  uintptr
	}{
		{"WS_EX_LAYERED", wsExLayered}, {"WS_EX_NOACTIVATE", wsExNoActivate}, {"WS_EX_TRANSPARENT", wsExTransparent},
		{"WS_EX_TOPMOST", wsExTopmost}, {"WS_EX_TOOLWINDOW", wsExToolWindow},
	} {
		if ex&f.bit == 0 {
			t.Errorf("extended style %#x lacks %s", ex, f.name)
		}
	}
	fg, _, _ := procGetForegroundWindow.Call()
	ind.Show(Recording, "")
	ind.SetLevel(0.5)
	if v, _, _ := procIsWindowVisible.Call(hwnd); v == 0 {
		t.Error("not visible after Show")
	}
	if now, _, _ := procGetForegroundWindow.Call(); now != fg {
		t.Errorf("foreground window changed from %#x to %#x", fg, now)
	}
	ind.Show(Error, "Not pasted")
	ind.Hide()
	if v, _, _ := procIsWindowVisible.Call(hwnd); v != 0 {
		t.Error("still visible after Hide")
	}
}
