package win32

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32               = windows.NewLazySystemDLL("user32.dll")
	kernel32             = windows.NewLazySystemDLL("kernel32.dll")
	procRegisterClassEx  = user32.NewProc("RegisterClassExW")
	procCreateWindowEx   = user32.NewProc("CreateWindowExW")
	procDestroyWindow    = user32.NewProc("DestroyWindow")
	procDefWindowProc    = user32.NewProc("DefWindowProcW")
	procPeekMessage      = user32.NewProc("PeekMessageW")
	procTranslateMessage = user32.NewProc("TranslateMessage")
	procDispatchMessage  = user32.NewProc("DispatchMessageW")
	procGetModuleHandle  = kernel32.NewProc("GetModuleHandleW")
)

const (
	pmRemove           = 1
	classAlreadyExists = 1410 // ERROR_CLASS_ALREADY_EXISTS
)

// HWNDMessage is the parent that makes a message-only window: (HWND)-3.
const HWNDMessage = ^uintptr(2)

// wndClassEx is WNDCLASSEXW.
type wndClassEx struct {
	Size       uint32
	Style      uint32
	WndProc    uintptr
	ClsExtra   int32
	WndExtra   int32
	Instance   windows.Handle
	Icon       windows.Handle
	Cursor     windows.Handle
	Background windows.Handle
	MenuName   *uint16
	ClassName  *uint16
	IconSm     windows.Handle
}

// msg is MSG.
type msg struct {
	HWnd    uintptr
	Message uint32
	WParam  uintptr
	LParam  uintptr
	Time    uint32
	X, Y    int32
	Private uint32
}

// Class is a window class to register: its name, window procedure (a
// windows.NewCallback, or DefWindowProcAddr) and background brush (0 for none).
type Class struct {
	Name       string
	WndProc    uintptr
	Background uintptr
}

// Window registers c in this executable (a class the process already
// registered is reused) and creates a window of it, on the calling thread,
// which then owns the window. parent HWNDMessage makes a message-only window.
func Window(c Class, exStyle uintptr, title string, style uintptr, x, y, width, height int32, parent uintptr) (uintptr, error) {
	inst, _, _ := procGetModuleHandle.Call(0)
	name, err := windows.UTF16PtrFromString(c.Name)
	if err != nil {
		return 0, fmt.Errorf("window class name %q: %w", c.Name, err)
	}
	wc := wndClassEx{WndProc: c.WndProc, Instance: windows.Handle(inst), ClassName: name, Background: windows.Handle(c.Background)}
	wc.Size = uint32(unsafe.Sizeof(wc))
	if r, _, err := procRegisterClassEx.Call(uintptr(unsafe.Pointer(&wc))); r == 0 && err != windows.Errno(classAlreadyExists) {
		return 0, fmt.Errorf("register the window class: %w", err)
	}
	var titlePtr *uint16
	if title != "" {
		titlePtr, _ = windows.UTF16PtrFromString(title)
	}
	hwnd, _, err := procCreateWindowEx.Call(exStyle, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(titlePtr)), style,
		uintptr(x), uintptr(y), uintptr(width), uintptr(height), parent, 0, inst, 0)
	if hwnd == 0 {
		return 0, fmt.Errorf("create the window: %w", err)
	}
	return hwnd, nil
}

// DestroyWindow destroys a window the calling thread created.
func DestroyWindow(hwnd uintptr) { procDestroyWindow.Call(hwnd) }

// DefWindowProcAddr is DefWindowProcW's address, for a class whose windows
// need no procedure of their own.
func DefWindowProcAddr() uintptr { return procDefWindowProc.Addr() }

// DefWindowProc is the default handling of a message.
func DefWindowProc(hwnd, message, wparam, lparam uintptr) uintptr {
	r, _, _ := procDefWindowProc.Call(hwnd, message, wparam, lparam)
	return r
}

// PumpMessages dispatches every message waiting for the calling thread's
// windows, without blocking, and says how many there were.
func PumpMessages() int {
	var m msg
	n := 0
	for {
		if r, _, _ := procPeekMessage.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0, pmRemove); r == 0 {
			return n
		}
		n++
		procTranslateMessage.Call(uintptr(unsafe.Pointer(&m)))
		procDispatchMessage.Call(uintptr(unsafe.Pointer(&m)))
	}
}
