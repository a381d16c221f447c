//go:build windows

package grab

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/win32"
)

// healthEvery is how often the window thread checks that the hook still sees
// the keys raw input sees (hookStale).
const healthEvery = 5 * time.Second

// vkMask is an unassigned key. Pressed while Win or Alt is held, it tells Windows
// the modifier took part in a shortcut, so releasing it opens neither the Start
// menu nor the window's menu bar.
const vkMask = 0xE8

// deliver queues the edges of v on their grabs.
func deliver(v verdict) {
	for _, f := range v.fired {
		f.g.push(f.edge)
	}
}

var (
	user32                       = windows.NewLazySystemDLL("user32.dll")
	wtsapi32                     = windows.NewLazySystemDLL("wtsapi32.dll")
	procSetWindowsHookExW        = user32.NewProc("SetWindowsHookExW")
	procUnhookWindowsHookEx      = user32.NewProc("UnhookWindowsHookEx")
	procCallNextHookEx           = user32.NewProc("CallNextHookEx")
	procRegisterRawInputDevices  = user32.NewProc("RegisterRawInputDevices")
	procSetTimer                 = user32.NewProc("SetTimer")
	procKillTimer                = user32.NewProc("KillTimer")
	procWTSRegisterSessionNotif  = wtsapi32.NewProc("WTSRegisterSessionNotification")
	procWTSUnRegisterSessionNoti = wtsapi32.NewProc("WTSUnRegisterSessionNotification")
)

const (
	wmDestroy           = 0x0002
	wmClose             = 0x0010
	wmStop              = 0x8000 + 1 // WM_APP+1: Close ends the window with it
	wmMouseHook         = 0x8000 + 2 // WM_APP+2: a mouse button was bound; install the mouse hook
	wmDisplayChange     = 0x007E
	wmPowerBroadcast    = 0x0218
	wmInput             = 0x00FF
	wmTimer             = 0x0113
	healthTimer         = 1 // the hook health check's timer id
	ridevRemove         = 0x00000001
	ridevInputSink      = 0x00000100
	hidUsagePageGeneric = 0x01
	hidUsageKeyboard    = 0x06
	wmWTSSessionChange  = 0x02B1
	pbtAPMResumeSuspend = 0x7
	pbtAPMResumeAuto    = 0x12
	notifyForThisSess   = 0

	whKeyboardLL  = 13
	whMouseLL     = 14
	wmXButtonDown = 0x020B
	wmXButtonUp   = 0x020C
	llmhfInjected = 0x01
	hcAction      = 0
	llkhfExtended = 0x01
	llkhfInjected = 0x10
	llkhfUp       = 0x80
)

// rawInputDevice is RAWINPUTDEVICE.
type rawInputDevice struct {
	usagePage uint16
	usage     uint16
	flags     uint32
	target    uintptr
}

// kbdLLHookStruct is KBDLLHOOKSTRUCT.
type kbdLLHookStruct struct {
	vkCode    uint32
	scanCode  uint32
	flags     uint32
	_         uint32 // time
	extraInfo uintptr
}

// msLLHookStruct is MSLLHOOKSTRUCT.
type msLLHookStruct struct {
	_, _      int32  // pt, the cursor position
	mouseData uint32 // for X buttons, the button (1 or 2) in the high word
	flags     uint32
	_         uint32 // time
	extraInfo uintptr
}

// osState runs one thread that owns a low-level keyboard hook (WH_KEYBOARD_LL) and a
// hidden top-level window (message-only windows get no broadcasts such as
// WM_DISPLAYCHANGE and WM_POWERBROADCAST; one is only the fallback). The hook sees key
// downs and ups, which RegisterHotKey does not report, and modifier-only chords such as
// ctrl+win, which RegisterHotKey cannot take. Hooks never conflict, so Grab never fails
// with ErrTaken.
type osState struct {
	log     *slog.Logger
	keys    *chords
	hookCB  uintptr
	mouseCB uintptr
	// wantMouse: a mouse button was bound once, so the mouse hook is kept
	// installed from then on; without one no mouse event passes through us.
	wantMouse atomic.Bool
	changes   chan hotkey.Renewal
	hwnd      uintptr // 0 when the window could not be created
	thread    uint32  // the loop's thread
	done      chan struct{}
	once      sync.Once

	mu      sync.Mutex
	hookErr error // why the hook is not installed; nil while it is

	// used on the window thread only
	hook          uintptr
	mouseHook     uintptr
	sessionNotify bool
	rawInput      bool      // keyboard raw input registered: the health check runs
	hookSeen      time.Time // the hook's latest event
	rawSeen       time.Time // the latest keyboard raw input
	lastRearm     time.Time // the latest re-arm by the health check
}

func newOSState(log *slog.Logger) (*osState, error) {
	s := &osState{
		log:     log,
		keys:    &chords{physical: asyncKeyDown},
		changes: make(chan hotkey.Renewal, 1),
		done:    make(chan struct{}),
	}
	s.hookCB = windows.NewCallback(s.hookProc)
	s.mouseCB = windows.NewCallback(s.mouseProc)
	ready := make(chan struct{})
	go s.loop(ready)
	<-ready // hwnd and thread are set
	return s, nil
}

// loop owns the window and the hook: Win32 delivers the window's messages and calls the
// hook only on the thread that created them, and only while it waits in GetMessage.
func (s *osState) loop(ready chan<- struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(s.done)

	s.thread = windows.GetCurrentThreadId()
	instance := win32.Instance()
	closeWindow, err := s.openWindow()
	if err != nil {
		// The hook works without it; only its renewal after unlock and resume is lost.
		s.log.Warn("no session watcher; the keyboard hook is not renewed after unlock or resume", "err", err)
	}
	defer closeWindow()
	// A missing hook is not fatal either: Grab reports it (the tray shows the problem),
	// and the next unlock or resume tries again.
	if err := s.installHook(instance); err != nil {
		s.log.Warn("keyboard hook not installed; hotkeys do not work", "err", err)
	}
	defer s.unhook()
	// Makes sure the thread has a message queue before Close may post WM_QUIT to it.
	win32.MakeQueue()
	close(ready)
	win32.MessageLoop()
}

// openWindow creates the hidden window that hears about unlock, resume and display
// changes. The returned func unregisters its class once the window is gone.
func (s *osState) openWindow() (func(), error) {
	// One class per watcher, since a class carries its window procedure.
	name := fmt.Sprintf("WhisperKeySessionWatcher-%p", s)
	if err := win32.RegisterClass(win32.Class{Name: name, WndProc: windows.NewCallback(s.wndProc)}); err != nil {
		return func() {}, fmt.Errorf("session watcher: %w", err)
	}
	unregister := func() { win32.UnregisterClass(name) }
	hwnd, err := win32.CreateWindow(name, 0, name, 0, 0, 0, 0, 0, 0)
	if err != nil {
		// A message-only window still hears about unlock, though not about resume or display changes.
		s.log.Warn("no session watcher window; watching unlock only", "err", err)
		hwnd, err = win32.CreateWindow(name, 0, name, 0, 0, 0, 0, 0, win32.HWNDMessage)
	}
	if err != nil {
		unregister()
		return func() {}, fmt.Errorf("session watcher: %w", err)
	}
	if r, _, err := procWTSRegisterSessionNotif.Call(hwnd, notifyForThisSess); r == 0 {
		s.log.Warn("no session notifications; the keyboard hook is not renewed after unlock", "err", err)
	} else {
		s.sessionNotify = true
	}
	s.hwnd = hwnd
	s.startHealth(hwnd)
	return unregister, nil
}

// startHealth asks for keyboard raw input on hwnd (also while another window
// has the focus) and checks every healthEvery that the hook still sees the
// keys raw input sees. Without it the hook is renewed on unlock and resume only.
func (s *osState) startHealth(hwnd uintptr) {
	dev := rawInputDevice{usagePage: hidUsagePageGeneric, usage: hidUsageKeyboard, flags: ridevInputSink, target: hwnd}
	if r, _, err := procRegisterRawInputDevices.Call(uintptr(unsafe.Pointer(&dev)), 1, unsafe.Sizeof(dev)); r == 0 {
		s.log.Warn("no keyboard raw input; a keyboard hook Windows removes is renewed only on unlock or resume", "err", err)
		return
	}
	s.rawInput = true
	if r, _, err := procSetTimer.Call(hwnd, healthTimer, uintptr(healthEvery/time.Millisecond), 0); r == 0 {
		s.log.Warn("no hook health timer", "err", err)
	}
}

// stopHealth undoes startHealth before the window goes.
func (s *osState) stopHealth(hwnd uintptr) {
	if !s.rawInput {
		return
	}
	procKillTimer.Call(hwnd, healthTimer)
	dev := rawInputDevice{usagePage: hidUsagePageGeneric, usage: hidUsageKeyboard, flags: ridevRemove}
	procRegisterRawInputDevices.Call(uintptr(unsafe.Pointer(&dev)), 1, unsafe.Sizeof(dev))
	s.rawInput = false
}

// checkHealth renews the hook when raw input saw keys the hook did not.
func (s *osState) checkHealth(now time.Time) {
	if !hookStale(s.hookSeen, s.rawSeen, s.lastRearm, now) {
		return
	}
	s.lastRearm = now
	s.log.Warn("the keyboard hook stopped receiving keys; re-arming it",
		"hook_last", s.hookSeen.Format(time.TimeOnly), "keys_last", s.rawSeen.Format(time.TimeOnly))
	s.renew(hotkey.Renewal{Reason: "keyboard hook stopped receiving keys"})
	s.hookSeen = now
}

// installHook (re)installs the keyboard hook. Windows removes a hook without notice when
// it once answers too slowly (LowLevelHooksTimeout), and hooks have been seen to stop
// after lock/unlock, so the window thread renews it on every unlock and resume.
func (s *osState) installHook(instance uintptr) error {
	s.unhook()
	h, _, err := procSetWindowsHookExW.Call(whKeyboardLL, s.hookCB, instance, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	if h == 0 {
		s.hookErr = fmt.Errorf("install the keyboard hook: %w", err)
		return s.hookErr
	}
	s.hook, s.hookErr = h, nil
	s.installMouseHook(instance)
	return nil
}

// installMouseHook (re)installs the low-level mouse hook once a mouse button is
// bound (wantMouse). A failure leaves the buttons without effect, and is logged.
func (s *osState) installMouseHook(instance uintptr) {
	if !s.wantMouse.Load() {
		return
	}
	s.unhookMouse()
	h, _, err := procSetWindowsHookExW.Call(whMouseLL, s.mouseCB, instance, 0)
	if h == 0 {
		s.log.Warn("mouse hook not installed; mouse button hotkeys do not work", "err", err)
		return
	}
	s.mouseHook = h
}

func (s *osState) unhookMouse() {
	if s.mouseHook != 0 {
		procUnhookWindowsHookEx.Call(s.mouseHook)
		s.mouseHook = 0
	}
}

func (s *osState) unhook() {
	s.unhookMouse()
	if s.hook == 0 {
		return
	}
	// It fails when Windows already removed the hook; either way it is gone.
	procUnhookWindowsHookEx.Call(s.hook)
	s.hook = 0
	s.mu.Lock()
	s.hookErr = errors.New("the keyboard hook is not installed")
	s.mu.Unlock()
}

// hookProc runs on the window thread for every key event on the desktop. It must return
// quickly (Windows drops a hook that once takes longer than LowLevelHooksTimeout), so it
// only matches under a short lock and queues without blocking; edges reach the Listener
// through the grabs' forwarders, and re-registering happens on the Listener's goroutine.
func (s *osState) hookProc(code, wParam, lParam uintptr) uintptr {
	if int32(code) != hcAction {
		return callNextHook(code, wParam, lParam)
	}
	k := *(**kbdLLHookStruct)(unsafe.Pointer(&lParam))
	s.hookSeen = time.Now()
	return s.feed(keyEvent{
		vk:       sidedVK(k.vkCode, k.scanCode, k.flags&llkhfExtended != 0),
		down:     k.flags&llkhfUp == 0,
		injected: k.flags&llkhfInjected != 0,
		extra:    k.extraInfo,
		at:       time.Now(),
	}, code, wParam, lParam)
}

// mouseProc runs on the window thread for every mouse event once a button is
// bound. Only the side buttons (XBUTTON1, XBUTTON2) go to the matcher, as the
// keys VK_XBUTTON1 and VK_XBUTTON2; a button is kept from the window only when a
// combination matched it.
func (s *osState) mouseProc(code, wParam, lParam uintptr) uintptr {
	if int32(code) != hcAction || (wParam != wmXButtonDown && wParam != wmXButtonUp) {
		return callNextHook(code, wParam, lParam)
	}
	m := *(**msLLHookStruct)(unsafe.Pointer(&lParam))
	vk := uint32(0x05) // VK_XBUTTON1
	if m.mouseData>>16 == 2 {
		vk = 0x06 // VK_XBUTTON2
	}
	return s.feed(keyEvent{
		vk:       vk,
		down:     wParam == wmXButtonDown,
		injected: m.flags&llmhfInjected != 0,
		extra:    m.extraInfo,
		at:       time.Now(),
	}, code, wParam, lParam)
}

// feed is where both hooks' events meet: it matches e, masks and delivers what
// it fired, and keeps e from the focused window only when a combination
// swallowed it; the rest goes on to the next hook.
func (s *osState) feed(e keyEvent, code, wParam, lParam uintptr) uintptr {
	v := s.keys.feed(e)
	if v.mask {
		s.pressMask()
	}
	deliver(v)
	if v.swallow {
		return 1
	}
	return callNextHook(code, wParam, lParam)
}

func callNextHook(code, wParam, lParam uintptr) uintptr {
	r, _, _ := procCallNextHookEx.Call(0, code, wParam, lParam)
	return r
}

// pressMask taps vkMask while the chord's Win or Alt is still down. Windows queues it
// after the current event, before the user can let go.
func (s *osState) pressMask() {
	tap := []win32.Key{{VK: vkMask, Extra: maskTag}, {VK: vkMask, Flags: win32.KeyUp, Extra: maskTag}}
	if err := win32.SendKeys(tap); err != nil {
		s.log.Debug("mask key not sent; releasing Win may open the Start menu", "err", err)
	}
}

// asyncKeyDown reads the keyboard state Windows keeps, which it updates after the hooks
// have seen an event.
func asyncKeyDown(vk uint32) bool { return win32.KeyDown(vk) }

func (s *osState) wndProc(hwnd, msg, wParam, lParam uintptr) uintptr {
	switch msg {
	case wmWTSSessionChange:
		switch wParam {
		case windows.WTS_SESSION_UNLOCK, windows.WTS_SESSION_LOGON, windows.WTS_CONSOLE_CONNECT:
			s.renew(hotkey.Renewal{Reason: "session unlocked", Session: true})
		}
	case wmPowerBroadcast:
		if wParam == pbtAPMResumeSuspend || wParam == pbtAPMResumeAuto {
			s.renew(hotkey.Renewal{Reason: "resumed from sleep", Session: true})
		}
		return 1
	case wmDisplayChange:
		s.renew(hotkey.Renewal{Reason: "display changed"})
	case wmInput:
		s.rawSeen = time.Now() // DefWindowProc below frees the input
	case wmTimer:
		if wParam == healthTimer {
			s.checkHealth(time.Now())
			return 0
		}
	case wmClose:
		// taskkill and installers send WM_CLOSE to every top-level window of
		// an app to ask it to quit; the tray decides that. Closing here would
		// leave the app running without its hotkeys.
		return 0
	case wmMouseHook:
		if s.mouseHook == 0 {
			s.installMouseHook(win32.Instance())
		}
		return 0
	case wmStop:
		s.stopHealth(hwnd)
		if s.sessionNotify {
			procWTSUnRegisterSessionNoti.Call(hwnd)
		}
		win32.DestroyWindow(hwnd)
		return 0
	case wmDestroy:
		win32.PostQuitMessage()
		return 0
	}
	return win32.DefWindowProc(hwnd, msg, wParam, lParam)
}

// renew reinstalls the hook, forgets keys whose ups were lost while the session was
// away, and tells the Listener, which registers its hotkeys again.
func (s *osState) renew(r hotkey.Renewal) {
	if err := s.installHook(win32.Instance()); err != nil {
		s.log.Warn("keyboard hook not reinstalled", "reason", r.Reason, "err", err)
	} else {
		s.log.Info("keyboard hook reinstalled", "reason", r.Reason)
	}
	deliver(s.keys.resync(time.Now()))
	// One pending renewal is enough, but a session's return must not be lost
	// behind a display change: merge them. Only this thread sends.
	select {
	case old := <-s.changes:
		r.Session = r.Session || old.Session
	default:
	}
	s.changes <- r
}

func (s *osState) resumed() <-chan hotkey.Renewal { return s.changes }

func (s *osState) close() error {
	s.once.Do(func() {
		if s.hwnd != 0 {
			win32.PostMessage(s.hwnd, wmStop, 0, 0) // the window ends the loop when destroyed
		} else {
			win32.PostQuit(s.thread)
		}
		<-s.done
	})
	return nil
}

// comboDown reads the hook's own record of the keys: GetAsyncKeyState misses the keys
// the hook swallows.
func (s *osState) comboDown(c hotkey.Combo) (bool, error) {
	return s.keys.comboDown(c), nil
}

// grab adds c to the hook's combinations; it fails only while the hook is not installed.
func (s *osState) grab(c hotkey.Combo) (hotkey.Grab, error) {
	select {
	case <-s.done:
		return nil, fmt.Errorf("register %s: the grabber is closed", c)
	default:
	}
	s.mu.Lock()
	err := s.hookErr
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("register %s: %w (it is tried again after unlock or resume)", c, err)
	}
	if c.Key.X11Button() != 0 && !s.wantMouse.Swap(true) {
		// Hooks belong to the window thread, which installs it at once.
		if s.hwnd == 0 {
			return nil, fmt.Errorf("register %s: the mouse hook needs the session watcher window, which could not be created", c)
		}
		win32.PostMessage(s.hwnd, wmMouseHook, 0, 0)
	}
	return s.keys.add(c), nil
}
