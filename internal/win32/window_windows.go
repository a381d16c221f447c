package win32

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32                = windows.NewLazySystemDLL("user32.dll")
	kernel32              = windows.NewLazySystemDLL("kernel32.dll")
	procRegisterClassEx   = user32.NewProc("RegisterClassExW")
	procUnregisterClass   = user32.NewProc("UnregisterClassW")
	procCreateWindowEx    = user32.NewProc("CreateWindowExW")
	procDestroyWindow     = user32.NewProc("DestroyWindow")
	procDefWindowProc     = user32.NewProc("DefWindowProcW")
	procPeekMessage       = user32.NewProc("PeekMessageW")
	procGetMessage        = user32.NewProc("GetMessageW")
	procTranslateMessage  = user32.NewProc("TranslateMessage")
	procDispatchMessage   = user32.NewProc("DispatchMessageW")
	procPostMessage       = user32.NewProc("PostMessageW")
	procPostQuitMessage   = user32.NewProc("PostQuitMessage")
	procPostThreadMessage = user32.NewProc("PostThreadMessageW")
	procGetModuleHandle   = kernel32.NewProc("GetModuleHandleW")
)

const (
	pmNoRemove         = 0
	pmRemove           = 1
	wmQuit             = 0x0012
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

// Instance is this executable's module handle (HINSTANCE).
func Instance() uintptr {
	inst, _, _ := procGetModuleHandle.Call(0)
	return inst
}

// RegisterClass registers c in this executable; a class the process already
// registered is reused.
func RegisterClass(c Class) error {
	name, err := windows.UTF16PtrFromString(c.Name)
	if err != nil {
		return fmt.Errorf("window class name %q: %w", c.Name, err)
	}
	wc := wndClassEx{WndProc: c.WndProc, Instance: windows.Handle(Instance()), ClassName: name, Background: windows.Handle(c.Background)}
	wc.Size = uint32(unsafe.Sizeof(wc))
	if r, _, err := procRegisterClassEx.Call(uintptr(unsafe.Pointer(&wc))); r == 0 && err != windows.Errno(classAlreadyExists) {
		return fmt.Errorf("register the window class: %w", err)
	}
	return nil
}

// UnregisterClass removes a class RegisterClass registered, once its windows
// are gone. A class per object (its procedure is that object's callback)
// would otherwise stay for the life of the process.
func UnregisterClass(name string) {
	if p, err := windows.UTF16PtrFromString(name); err == nil {
		procUnregisterClass.Call(uintptr(unsafe.Pointer(p)), Instance())
	}
}

// CreateWindow creates a window of a registered class, or of a system class
// such as STATIC, on the calling thread, which then owns the window. parent
// HWNDMessage makes a message-only window; an empty title passes none.
func CreateWindow(class string, exStyle uintptr, title string, style uintptr, x, y, width, height int32, parent uintptr) (uintptr, error) {
	name, err := windows.UTF16PtrFromString(class)
	if err != nil {
		return 0, fmt.Errorf("window class name %q: %w", class, err)
	}
	var titlePtr *uint16
	if title != "" {
		if titlePtr, err = windows.UTF16PtrFromString(title); err != nil {
			return 0, fmt.Errorf("window title %q: %w", title, err)
		}
	}
	hwnd, _, err := procCreateWindowEx.Call(exStyle, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(titlePtr)), style,
		uintptr(x), uintptr(y), uintptr(width), uintptr(height), parent, 0, Instance(), 0)
	if hwnd == 0 {
		return 0, fmt.Errorf("create the window: %w", err)
	}
	return hwnd, nil
}

// Window registers c (RegisterClass) and creates a window of it (CreateWindow).
func Window(c Class, exStyle uintptr, title string, style uintptr, x, y, width, height int32, parent uintptr) (uintptr, error) {
	if err := RegisterClass(c); err != nil {
		return 0, err
	}
	return CreateWindow(c.Name, exStyle, title, style, x, y, width, height, parent)
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

// MakeQueue gives the calling thread its message queue now, so that a
// PostThreadMessage or PostQuit from another thread is not lost before the
// thread first waits for a message.
func MakeQueue() {
	var m msg
	procPeekMessage.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0, pmNoRemove)
}

// MessageLoop waits for and dispatches the calling thread's messages until
// WM_QUIT (PostQuitMessage, PostQuit) or a GetMessage error.
func MessageLoop() {
	var m msg
	for {
		if r, _, _ := procGetMessage.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0); int32(r) <= 0 { // 0: WM_QUIT, -1: error
			return
		}
		procTranslateMessage.Call(uintptr(unsafe.Pointer(&m)))
		procDispatchMessage.Call(uintptr(unsafe.Pointer(&m)))
	}
}

// PostMessage queues a message for hwnd, from any thread.
func PostMessage(hwnd, message, wparam, lparam uintptr) {
	procPostMessage.Call(hwnd, message, wparam, lparam)
}

// PostQuitMessage ends the calling thread's MessageLoop, typically from WM_DESTROY.
func PostQuitMessage() { procPostQuitMessage.Call(0) }

// PostQuit ends the MessageLoop of thread, from any thread.
func PostQuit(thread uint32) { procPostThreadMessage.Call(uintptr(thread), wmQuit, 0, 0) }
