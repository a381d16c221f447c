package notify

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/win32"
)

// Windows: a notification-area icon of our own, added for the balloon and removed
// iconLinger after the last one, so no second icon sits next to the tray's for good. Windows 10 and later show a balloon as a toast (and keep it in the action centre),
// with no console window and no COM/WinRT activation to set up. The icon lives on one
// locked OS thread because a window belongs to the thread that created it.

var (
	user32         = windows.NewLazySystemDLL("user32.dll")
	shell32        = windows.NewLazySystemDLL("shell32.dll")
	procLoadIcon   = user32.NewProc("LoadIconW")
	procNotifyIcon = shell32.NewProc("Shell_NotifyIconW")
)

const (
	nimAdd, nimModify, nimDelete = 0, 1, 2
	nifIcon, nifTip, nifInfo     = 0x2, 0x4, 0x10
	niifInfo, niifWarning        = 0x1, 0x2
	niifRespectQuietTime         = 0x80
	idiApplication               = 32512
	iconLinger                   = 30 * time.Second
)

// notifyIconData is NOTIFYICONDATAW.
type notifyIconData struct {
	CbSize           uint32
	HWnd             uintptr
	UID              uint32
	UFlags           uint32
	UCallbackMessage uint32
	HIcon            uintptr
	SzTip            [128]uint16
	DwState          uint32
	DwStateMask      uint32
	SzInfo           [256]uint16
	UVersion         uint32
	SzInfoTitle      [64]uint16
	DwInfoFlags      uint32
	GUIDItem         windows.GUID
	HBalloonIcon     uintptr
}

type request struct {
	m    Message
	done chan error
}

type osNotifier struct {
	log  *slog.Logger
	reqs chan request
	quit chan struct{}
	done chan struct{}
}

func newOSNotifier(cfg Config, log *slog.Logger) (*osNotifier, error) {
	o := &osNotifier{log: log, reqs: make(chan request), quit: make(chan struct{}), done: make(chan struct{})}
	started := make(chan error, 1)
	go o.run(cfg.AppName, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return o, nil
}

func (o *osNotifier) run(app string, started chan<- error) {
	defer close(o.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// A system class: the icon needs a window to belong to, not a procedure of ours.
	hwnd, err := win32.CreateWindow("STATIC", 0, "", 0, 0, 0, 0, 0, win32.HWNDMessage)
	if err != nil {
		started <- fmt.Errorf("the notification window: %w", err)
		return
	}
	defer win32.DestroyWindow(hwnd)
	icon, _, _ := procLoadIcon.Call(0, idiApplication)
	nid := notifyIconData{HWnd: hwnd, UID: 1, UFlags: nifIcon | nifTip, HIcon: icon}
	nid.CbSize = uint32(unsafe.Sizeof(nid))
	copy(nid.SzTip[:len(nid.SzTip)-1], windows.StringToUTF16(app))
	shown := false
	remove := func() {
		if shown {
			procNotifyIcon.Call(nimDelete, uintptr(unsafe.Pointer(&nid)))
			shown = false
		}
	}
	defer remove()
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	defer linger.Stop()
	started <- nil
	for {
		select {
		case <-o.quit:
			return
		case <-linger.C:
			remove()
		case r := <-o.reqs:
			if !shown {
				if ok, _, err := procNotifyIcon.Call(nimAdd, uintptr(unsafe.Pointer(&nid))); ok == 0 {
					r.done <- fmt.Errorf("add the notification icon: %w", err)
					continue
				}
				shown = true
			}
			linger.Reset(iconLinger)
			b := nid
			b.UFlags = nifInfo
			b.DwInfoFlags = niifInfo | niifRespectQuietTime
			if r.m.Urgent {
				b.DwInfoFlags = niifWarning
			}
			copy(b.SzInfoTitle[:len(b.SzInfoTitle)-1], windows.StringToUTF16(r.m.Summary))
			copy(b.SzInfo[:len(b.SzInfo)-1], windows.StringToUTF16(r.m.Body))
			var res error
			if ok, _, err := procNotifyIcon.Call(nimModify, uintptr(unsafe.Pointer(&b))); ok == 0 {
				res = fmt.Errorf("show the balloon: %w", err)
			}
			r.done <- res
		}
	}
}

func (o *osNotifier) show(m Message) error {
	r := request{m: m, done: make(chan error, 1)}
	select {
	case o.reqs <- r:
		return <-r.done
	case <-o.done:
		return errors.New("notifier closed")
	}
}

func (o *osNotifier) close() error {
	close(o.quit)
	<-o.done
	return nil
}
