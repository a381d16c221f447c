package win32

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

const (
	wmDestroy = 0x0002
	wmApp     = 0x8000
)

// onThread runs fn on a locked OS thread, as the window owners do, and fails t unless
// it returns within five seconds.
func onThread(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fn()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the window thread never ended its message loop")
	}
}

// A window of our own class gets posted messages in order through MessageLoop, and
// destroying it (WM_DESTROY → PostQuitMessage) ends the loop; the class can then go.
// (Message-only windows: wine without a display makes no top-level ones.)
func TestWindowLoop(t *testing.T) {
	tests := []struct {
		name string
		// registered: the class is registered already, and Window reuses it.
		registered bool
	}{
		{name: "new class"},
		{name: "class registered before", registered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []uintptr // wParams of wmApp, on the window thread only
			proc := windows.NewCallback(func(hwnd, message, wparam, lparam uintptr) uintptr {
				switch message {
				case wmApp:
					got = append(got, wparam)
					if wparam == 3 {
						DestroyWindow(hwnd)
					}
					return 0
				case wmDestroy:
					PostQuitMessage()
					return 0
				}
				return DefWindowProc(hwnd, message, wparam, lparam)
			})
			name := "WhisperKeyWin32Test"
			c := Class{Name: name, WndProc: proc}
			if tt.registered {
				if err := RegisterClass(c); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			onThread(t, func() {
				var hwnd uintptr
				if hwnd, err = Window(c, 0, name, 0, 0, 0, 0, 0, HWNDMessage); err != nil {
					return
				}
				for i := uintptr(1); i <= 3; i++ {
					PostMessage(hwnd, wmApp, i, 0)
				}
				MessageLoop()
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != "[1 2 3]" {
				t.Fatalf("the window got %v, want [1 2 3] in order", got)
			}
			UnregisterClass(name)
		})
	}
}

// PostQuit from another thread ends a MessageLoop on a thread without windows, once
// MakeQueue gave that thread its queue.
func TestPostQuit(t *testing.T) {
	thread := make(chan uint32)
	go func() { PostQuit(<-thread) }()
	onThread(t, func() {
		MakeQueue()
		thread <- windows.GetCurrentThreadId()
		MessageLoop()
	})
}

// CreateWindow makes windows of system classes (notify's STATIC) and of no unknown one.
func TestCreateWindowSystemClass(t *testing.T) {
	onThread(t, func() {
		hwnd, err := CreateWindow("STATIC", 0, "", 0, 0, 0, 0, 0, HWNDMessage)
		if err != nil {
			t.Error(err)
			return
		}
		DestroyWindow(hwnd)
	})
	if _, err := CreateWindow("WhisperKeyNoSuchClass", 0, "", 0, 0, 0, 0, 0, HWNDMessage); err == nil {
		t.Fatal("CreateWindow of an unregistered class succeeded")
	}
}

func TestKeyboardInputSize(t *testing.T) {
	want := uintptr(40) // sizeof(INPUT) on 64-bit Windows
	if unsafe.Sizeof(uintptr(0)) == 4 {
		want = 28
	}
	if got := unsafe.Sizeof(keyboardInput{}); got != want {
		t.Fatalf("sizeof(keyboardInput) = %d, want %d: SendInput would refuse it", got, want)
	}
}
