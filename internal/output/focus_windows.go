package output

import (
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procGetWindowText = user32.NewProc("GetWindowTextW")

// describe reads target's window class, title and executable name.
func (b *osBackend) describe(target uint64) (Window, error) {
	if target == 0 {
		return Window{}, errNoWindow
	}
	w := Window{Class: windowClass(target)}
	var buf [512]uint16
	n, _, _ := procGetWindowText.Call(uintptr(target), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	w.Title = windows.UTF16ToString(buf[:n])
	var pid uint32
	if _, err := windows.GetWindowThreadProcessId(windows.HWND(target), &pid); err == nil && pid != 0 {
		// Limited rights suffice for the image name, even of an elevated process.
		if h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid); err == nil {
			var name [windows.MAX_PATH]uint16
			size := uint32(len(name))
			if windows.QueryFullProcessImageName(h, 0, &name[0], &size) == nil {
				w.Exe = filepath.Base(windows.UTF16ToString(name[:size]))
			}
			_ = windows.CloseHandle(h)
		}
	}
	return w, nil
}

// windowClass reads a window's class name; "" where the window is gone.
func windowClass(hwnd uint64) string {
	var buf [256]uint16 // a class name has at most 256 characters
	n, err := windows.GetClassName(windows.HWND(hwnd), &buf[0], int32(len(buf)))
	if err != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}
