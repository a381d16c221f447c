package tray

import (
	"io"
	"log/slog"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// taskkill, installers and the end of the session close an app's windows to
// ask it to quit: the tray turns that into Quit, as if chosen from its menu,
// and Close after it still returns.
func TestWMCloseQuits(t *testing.T) {
	tr := New(Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	user32 := windows.NewLazySystemDLL("user32.dll")
	class, _ := windows.UTF16PtrFromString("SystrayClass") // fyne.io/systray's window class
	hwnd, _, err := user32.NewProc("FindWindowW").Call(uintptr(unsafe.Pointer(class)), 0)
	if hwnd == 0 {
		t.Fatalf("no tray window: %v", err)
	}
	const wmClose = 0x0010
	user32.NewProc("PostMessageW").Call(hwnd, wmClose, 0, 0)
	select {
	case a := <-tr.Actions():
		if a.Kind != Quit {
			t.Fatalf("got %v, want Quit", a.Kind)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no Quit within 5 s of WM_CLOSE")
	}
}
