//go:build windows

package grab

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"unsafe"

	xhotkey "golang.design/x/hotkey"
	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

var (
	user32                       = windows.NewLazySystemDLL("user32.dll")
	wtsapi32                     = windows.NewLazySystemDLL("wtsapi32.dll")
	kernel32                     = windows.NewLazySystemDLL("kernel32.dll")
	procRegisterClassExW         = user32.NewProc("RegisterClassExW")
	procUnregisterClassW         = user32.NewProc("UnregisterClassW")
	procCreateWindowExW          = user32.NewProc("CreateWindowExW")
	procDestroyWindow            = user32.NewProc("DestroyWindow")
	procDefWindowProcW           = user32.NewProc("DefWindowProcW")
	procGetMessageW              = user32.NewProc("GetMessageW")
	procTranslateMessage         = user32.NewProc("TranslateMessage")
	procDispatchMessageW         = user32.NewProc("DispatchMessageW")
	procPostMessageW             = user32.NewProc("PostMessageW")
	procPostQuitMessage          = user32.NewProc("PostQuitMessage")
	procGetModuleHandleW         = kernel32.NewProc("GetModuleHandleW")
	procWTSRegisterSessionNotif  = wtsapi32.NewProc("WTSRegisterSessionNotification")
	procWTSUnRegisterSessionNoti = wtsapi32.NewProc("WTSUnRegisterSessionNotification")
)

const (
	wmDestroy           = 0x0002
	wmClose             = 0x0010
	wmDisplayChange     = 0x007E
	wmPowerBroadcast    = 0x0218
	wmWTSSessionChange  = 0x02B1
	wtsConsoleConnect   = 0x1
	wtsSessionLogon     = 0x5
	wtsSessionUnlock    = 0x8
	pbtAPMResumeSuspend = 0x7
	pbtAPMResumeAuto    = 0x12
	notifyForThisSess   = 0

	vkShift   = 0x10
	vkControl = 0x11
	vkMenu    = 0x12
)

type wndClassEx struct {
	size       uint32
	style      uint32
	wndProc    uintptr
	clsExtra   int32
	wndExtra   int32
	instance   uintptr
	icon       uintptr
	cursor     uintptr
	background uintptr
	menuName   *uint16
	className  *uint16
	iconSm     uintptr
}

type winMsg struct {
	hwnd    uintptr
	message uint32
	wParam  uintptr
	lParam  uintptr
	time    uint32
	pt      struct{ x, y int32 }
	private uint32
}

// osState runs a hidden top-level window (message-only windows get no broadcasts such as
// WM_DISPLAYCHANGE and WM_POWERBROADCAST) that reports when hotkeys may have been lost.
type osState struct {
	log     *slog.Logger
	changes chan string
	hwnd    uintptr
	done    chan struct{}
	once    sync.Once

	sessionNotify bool // WTSRegisterSessionNotification succeeded; used on the window thread only
}

func newOSState(log *slog.Logger) (*osState, error) {
	s := &osState{log: log, changes: make(chan string, 1), done: make(chan struct{})}
	ready := make(chan error, 1)
	go s.loop(ready)
	if err := <-ready; err != nil {
		<-s.done
		return nil, err
	}
	return s, nil
}

// loop owns the window: Win32 delivers its messages only to the thread that created it.
func (s *osState) loop(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(s.done)

	instance, _, _ := procGetModuleHandleW.Call(0)
	// One class per watcher, since a class carries its window procedure.
	name, err := windows.UTF16PtrFromString(fmt.Sprintf("WhisperKeySessionWatcher-%p", s))
	if err != nil {
		ready <- err
		return
	}
	wc := wndClassEx{wndProc: windows.NewCallback(s.wndProc), instance: instance, className: name}
	wc.size = uint32(unsafe.Sizeof(wc))
	if r, _, err := procRegisterClassExW.Call(uintptr(unsafe.Pointer(&wc))); r == 0 {
		ready <- fmt.Errorf("register the session watcher window class: %w", err)
		return
	}
	defer procUnregisterClassW.Call(uintptr(unsafe.Pointer(name)), instance)
	hwnd, _, err := procCreateWindowExW.Call(0, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(name)),
		0, 0, 0, 0, 0, 0, 0, instance, 0)
	if hwnd == 0 {
		ready <- fmt.Errorf("create the session watcher window: %w", err)
		return
	}
	if r, _, err := procWTSRegisterSessionNotif.Call(hwnd, notifyForThisSess); r == 0 {
		s.log.Warn("no session notifications; hotkeys are not re-registered after unlock", "err", err)
	} else {
		s.sessionNotify = true
	}
	s.hwnd = hwnd
	ready <- nil

	var m winMsg
	for {
		r, _, _ := procGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0)
		if int32(r) <= 0 { // 0: WM_QUIT, -1: error
			return
		}
		procTranslateMessage.Call(uintptr(unsafe.Pointer(&m)))
		procDispatchMessageW.Call(uintptr(unsafe.Pointer(&m)))
	}
}

func (s *osState) wndProc(hwnd, msg, wParam, lParam uintptr) uintptr {
	switch msg {
	case wmWTSSessionChange:
		switch wParam {
		case wtsSessionUnlock, wtsSessionLogon, wtsConsoleConnect:
			s.notify("session unlocked")
		}
	case wmPowerBroadcast:
		if wParam == pbtAPMResumeSuspend || wParam == pbtAPMResumeAuto {
			s.notify("resumed from sleep")
		}
		return 1
	case wmDisplayChange:
		s.notify("display changed")
	case wmClose:
		if s.sessionNotify {
			procWTSUnRegisterSessionNoti.Call(hwnd)
		}
		procDestroyWindow.Call(hwnd)
		return 0
	case wmDestroy:
		procPostQuitMessage.Call(0)
		return 0
	}
	r, _, _ := procDefWindowProcW.Call(hwnd, msg, wParam, lParam)
	return r
}

// notify never blocks the window thread: a pending reason already triggers a re-registration.
func (s *osState) notify(reason string) {
	select {
	case s.changes <- reason:
	default:
	}
}

func (s *osState) resumed() <-chan string { return s.changes }

func (s *osState) close() error {
	s.once.Do(func() {
		procPostMessageW.Call(s.hwnd, wmClose, 0, 0)
		<-s.done
	})
	return nil
}

// comboDown is not offered on Windows: RegisterHotKey reports only the combination, and
// GetAsyncKeyState reads nothing while an elevated window has the focus.
func (s *osState) comboDown(hotkey.Combo) (bool, error) {
	return false, errors.ErrUnsupported
}

func winMods(m hotkey.Mods) []xhotkey.Modifier {
	var out []xhotkey.Modifier
	m.Each(func(one hotkey.Mods) {
		switch one {
		case hotkey.ModCtrl:
			out = append(out, xhotkey.ModCtrl)
		case hotkey.ModShift:
			out = append(out, xhotkey.ModShift)
		case hotkey.ModAlt:
			out = append(out, xhotkey.ModAlt)
		case hotkey.ModWin:
			out = append(out, xhotkey.ModWin)
		}
	})
	return out
}

func (s *osState) grab(c hotkey.Combo) (hotkey.Grab, error) {
	regs, err := s.registrations(c)
	if err != nil {
		return nil, fmt.Errorf("register %s: %w", c, err)
	}
	return grabRegs(s.log, c, regs)
}

// registrations maps c to RegisterHotKey calls. A modifier-only combination has no key,
// so each of its modifiers in turn is registered as the key, once with the other
// modifiers and once with all of them (whether Windows counts the key's own modifier as
// held when it goes down is not documented). This is unverified on a real Windows
// machine: AutoHotkey and OpenWhispr use a low-level keyboard hook for modifier-only
// chords, which x/hotkey does not offer. Grab succeeds when any registration does.
func (s *osState) registrations(c hotkey.Combo) ([]reg, error) {
	if c.Key != 0 {
		return []reg{{mods: winMods(c.Mods), key: xhotkey.Key(c.Key.WindowsVK())}}, nil
	}
	var out []reg
	c.Mods.Each(func(m hotkey.Mods) {
		var vks []uint32
		switch m {
		case hotkey.ModWin:
			vks = m.WindowsVKs() // there is no generic VK for the Windows key
		case hotkey.ModCtrl:
			vks = []uint32{vkControl}
		case hotkey.ModShift:
			vks = []uint32{vkShift}
		case hotkey.ModAlt:
			vks = []uint32{vkMenu}
		}
		for _, vk := range vks {
			out = append(out, reg{mods: winMods(c.Mods &^ m), key: xhotkey.Key(vk)},
				reg{mods: winMods(c.Mods), key: xhotkey.Key(vk)})
		}
	})
	return out, nil
}
