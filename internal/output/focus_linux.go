package output

import (
	"os"
	"path/filepath"
	"strconv"
)

// describe reads target's WM_CLASS, title and, through _NET_WM_PID, the
// program's file name.
func (b *osBackend) describe(target uint64) (Window, error) {
	if isWayland(target) {
		if w, ok := b.wl.focused(); ok && wlTarget|w.id == target {
			return w.describe(), nil
		}
		return Window{}, errNoWindow
	}
	if b.owner == nil || target <= 1 {
		return Window{}, errNoWindow
	}
	var w Window
	w.Class, w.Instance = b.owner.windowClass(target)
	title, pid := b.owner.titlePID(target)
	w.Title = title
	if pid > 0 {
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
			w.Exe = filepath.Base(exe)
		}
	}
	return w, nil
}
