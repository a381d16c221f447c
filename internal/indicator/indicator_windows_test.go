package indicator

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

var procGetWindowLong = user32.NewProc("GetWindowLongPtrW")

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
	fg := windows.GetForegroundWindow()
	ind.Show(Recording, "")
	ind.SetLevel(0.5)
	if !windows.IsWindowVisible(windows.HWND(hwnd)) {
		t.Error("not visible after Show")
	}
	if now := windows.GetForegroundWindow(); now != fg {
		t.Errorf("foreground window changed from %#x to %#x", fg, now)
	}
	ind.Show(Error, "Not pasted")
	ind.Hide()
	if windows.IsWindowVisible(windows.HWND(hwnd)) {
		t.Error("still visible after Hide")
	}
}

// Live text is fitted with GDI's metrics of the font the window draws in:
// the newest whole words, within the room beside the short bar, and more
// of them than the 15 characters a fixed count once allowed.
func TestWindowsLiveTextFits(t *testing.T) {
	ind, err := New(Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Close()
	hwnd := ind.os.(*osWindow).hwnd
	const said = "The quarterly report is due on Friday afternoon. Let us meet in the small conference room at ten."
	ind.Show(Recording, "")
	ind.Live(said) // paints through the same fitting

	var label string
	var width, room int
	ind.os.(*osWindow).do(func(uintptr) {
		dc, _, _ := procGetDC.Call(hwnd)
		defer procReleaseDC.Call(hwnd, dc)
		measure := func(s string) int { return textWidth(dc, s) }
		room = Width - 14 - (12 + 14 + 12)
		label = recordingLabel(measure, view{state: Recording, text: said, live: true}, room)
		width = measure(label)
	})
	body, cut := strings.CutPrefix(label, "…")
	if !cut || !strings.HasSuffix(said, " "+body) {
		t.Errorf("label %q: not the newest whole words of %q", label, said)
	}
	if width <= 0 || width > room-liveBarW-labelGap {
		t.Errorf("label %q is %d px wide; the room is %d", label, width, room-liveBarW-labelGap)
	}
	t.Logf("%q, %d px of %d", label, width, room-liveBarW-labelGap)
	ind.Hide()
}
