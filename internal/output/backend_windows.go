//go:build windows

package output

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/win32"
)

// Registered formats that keep our temporary text out of clipboard history (Win+V),
// cloud clipboard and clipboard monitors.
const (
	fmtExcludeFromMonitors = "ExcludeClipboardContentFromMonitorProcessing"
	fmtIncludeInHistory    = "CanIncludeInClipboardHistory"
	fmtUploadToCloud       = "CanUploadToCloudClipboard"
)

var (
	user32                         = windows.NewLazySystemDLL("user32.dll")
	kernel32                       = windows.NewLazySystemDLL("kernel32.dll")
	gdi32                          = windows.NewLazySystemDLL("gdi32.dll")
	procOpenClipboard              = user32.NewProc("OpenClipboard")
	procCloseClipboard             = user32.NewProc("CloseClipboard")
	procEmptyClipboard             = user32.NewProc("EmptyClipboard")
	procEnumClipboardFormats       = user32.NewProc("EnumClipboardFormats")
	procGetClipboardData           = user32.NewProc("GetClipboardData")
	procSetClipboardData           = user32.NewProc("SetClipboardData")
	procRegisterClipboardFormatW   = user32.NewProc("RegisterClipboardFormatW")
	procGetClipboardSequenceNumber = user32.NewProc("GetClipboardSequenceNumber")
	procMapVirtualKeyW             = user32.NewProc("MapVirtualKeyW")
	procGlobalAlloc                = kernel32.NewProc("GlobalAlloc")
	procGlobalFree                 = kernel32.NewProc("GlobalFree")
	procGlobalLock                 = kernel32.NewProc("GlobalLock")
	procGlobalUnlock               = kernel32.NewProc("GlobalUnlock")
	procGlobalSize                 = kernel32.NewProc("GlobalSize")
	procGetEnhMetaFileBits         = gdi32.NewProc("GetEnhMetaFileBits")
	procSetEnhMetaFileBits         = gdi32.NewProc("SetEnhMetaFileBits")
	procDeleteEnhMetaFile          = gdi32.NewProc("DeleteEnhMetaFile")
)

const (
	cfUnicodeText  = 13
	gmemMoveable   = 0x0002
	mapvkVKToVSC   = 0
	vkControl      = 0x11
	vkV            = 0x56
	vkReturn       = 0x0D
	vkLeft         = 0x25
	vkRight        = 0x27
	vkBack         = 0x08
	vkC            = 0x43
	maxSavedFormat = 64 << 20 // larger formats are not saved; restoring them would stall the paste
)

// osBackend on Windows: Win32 clipboard and SendInput.
type osBackend struct {
	log          *slog.Logger
	selfElevated bool
	// registered formats that keep our temporary text out of clipboard history
	exclude, history, cloud uint32
	render                  *renderer // delayed rendering, to see the target read; nil if unavailable
}

// snapshot holds every clipboard format that is plain memory or an enhanced metafile.
type snapshot struct{ items []winItem }

type winItem struct {
	format uint32
	kind   winFormatKind
	data   []byte
}

// ownership is the clipboard sequence number right after our write; read (nil where
// unknown) closes when a program asked for the delayed-rendered text.
type ownership struct {
	seq      uintptr
	read     <-chan struct{}
	rendered *atomic.Uintptr // the sequence number after rendering the text; nil without delayed rendering
}

func newOSBackend(log *slog.Logger, _ Config) (*osBackend, error) {
	b := &osBackend{log: log, selfElevated: windows.GetCurrentProcessToken().IsElevated()}
	b.exclude = registerFormat(fmtExcludeFromMonitors)
	b.history = registerFormat(fmtIncludeInHistory)
	b.cloud = registerFormat(fmtUploadToCloud)
	r, err := newRenderer(log)
	if err != nil {
		log.Warn("cannot watch the target read the clipboard; restoring after a fixed delay", "err", err)
	}
	b.render = r
	return b, nil
}

func registerFormat(name string) uint32 {
	p, _ := windows.UTF16PtrFromString(name)
	r, _, _ := procRegisterClipboardFormatW.Call(uintptr(unsafe.Pointer(p)))
	return uint32(r)
}

func (b *osBackend) close() error {
	if b.render != nil {
		b.render.close()
	}
	return nil
}
func (b *osBackend) canPaste() error { return nil }
func (b *osBackend) keys() pasteKeys { return pasteKeys{ctrl: vkControl, v: vkV, enter: vkReturn} }

// editKeys are the virtual keys Undo presses: Shift, the arrows, Backspace and C.
func (b *osBackend) editKeys() (editKeys, error) {
	return editKeys{ctrl: vkControl, shift: vkShift, left: vkLeft, right: vkRight, backspace: vkBack, c: vkC}, nil
}

// text is the snapshot's CF_UNICODETEXT, if it holds it.
func (s *snapshot) text() (string, bool) {
	for _, it := range s.items {
		if it.format != cfUnicodeText {
			continue
		}
		u := make([]uint16, len(it.data)/2)
		for i := range u {
			u[i] = uint16(it.data[2*i]) | uint16(it.data[2*i+1])<<8
		}
		return windows.UTF16ToString(u), true // up to the NUL, as write's UTF16FromString puts it
	}
	return "", false
}

// target is the foreground window and whether UIPI would drop our input to it.
func (b *osBackend) target() (uint64, bool, error) {
	hwnd := windows.GetForegroundWindow()
	if hwnd == 0 {
		return 0, false, nil
	}
	var pid uint32
	if _, err := windows.GetWindowThreadProcessId(hwnd, &pid); err != nil {
		return uint64(hwnd), false, fmt.Errorf("find the focused window's process: %w", err)
	}
	elev := processElevation(pid)
	return uint64(hwnd), pasteBlocked(b.selfElevated, elev), nil
}

func processElevation(pid uint32) elevation {
	denied := func(err error) elevation {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			return elevDenied
		}
		return elevUnknown
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return denied(err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return denied(err)
	}
	defer tok.Close()
	var elevated, n uint32
	if err := windows.GetTokenInformation(tok, windows.TokenElevation, (*byte)(unsafe.Pointer(&elevated)), 4, &n); err != nil {
		return elevUnknown
	}
	if elevated != 0 {
		return elevYes
	}
	return elevNo
}

// withClipboard runs fn with the clipboard open. Another program may hold it for a
// moment (clipboard history does, right after a change), so opening is retried.
// OpenClipboard belongs to the calling thread, hence the lock.
func withClipboard(ctx context.Context, fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	deadline := time.Now().Add(time.Second)
	for {
		r, _, err := procOpenClipboard.Call(0)
		if r != 0 {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("open the clipboard (another program holds it): %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer procCloseClipboard.Call()
	return fn()
}

func sequence() uintptr {
	r, _, _ := procGetClipboardSequenceNumber.Call()
	return r
}

// addr turns an address a Win32 call returned into a pointer. The memory is not Go's,
// so the garbage collector ignores it.
func addr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// globalBytes copies the contents of an HGLOBAL.
func globalBytes(h uintptr) ([]byte, error) {
	size, _, _ := procGlobalSize.Call(h)
	if size > maxSavedFormat {
		return nil, fmt.Errorf("%d bytes is too large to keep", size)
	}
	p, _, err := procGlobalLock.Call(h)
	if p == 0 {
		return nil, fmt.Errorf("GlobalLock: %w", err)
	}
	defer procGlobalUnlock.Call(h)
	return append([]byte(nil), unsafe.Slice((*byte)(addr(p)), size)...), nil
}

// setGlobal puts data on the open clipboard as an HGLOBAL; the clipboard owns it afterwards.
func setGlobal(format uint32, data []byte) error {
	n := max(len(data), 1)
	h, _, err := procGlobalAlloc.Call(gmemMoveable, uintptr(n))
	if h == 0 {
		return fmt.Errorf("GlobalAlloc: %w", err)
	}
	p, _, err := procGlobalLock.Call(h)
	if p == 0 {
		procGlobalFree.Call(h)
		return fmt.Errorf("GlobalLock: %w", err)
	}
	copy(unsafe.Slice((*byte)(addr(p)), n), data)
	procGlobalUnlock.Call(h)
	if r, _, err := procSetClipboardData.Call(uintptr(format), h); r == 0 {
		procGlobalFree.Call(h)
		return fmt.Errorf("SetClipboardData(%d): %w", format, err)
	}
	return nil
}

func setEnhMetafile(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	h, _, err := procSetEnhMetaFileBits.Call(uintptr(len(data)), uintptr(unsafe.Pointer(&data[0])))
	if h == 0 {
		return fmt.Errorf("SetEnhMetaFileBits: %w", err)
	}
	if r, _, err := procSetClipboardData.Call(cfEnhMetafile, h); r == 0 {
		procDeleteEnhMetaFile.Call(h)
		return fmt.Errorf("SetClipboardData(CF_ENHMETAFILE): %w", err)
	}
	return nil
}

// save copies every format the clipboard holds, as EnumClipboardFormats lists them
// (the order tells readers which to prefer, so it is kept).
func (b *osBackend) save(ctx context.Context) (*snapshot, error) {
	s := &snapshot{}
	err := withClipboard(ctx, func() error {
		var f uintptr
		for {
			next, _, err := procEnumClipboardFormats.Call(f)
			if next == 0 {
				if errno, ok := err.(windows.Errno); ok && errno != 0 {
					return fmt.Errorf("EnumClipboardFormats: %w", err)
				}
				return nil
			}
			f = next
			kind := winFormatKindOf(uint32(f))
			if kind == winSkip {
				continue
			}
			h, _, _ := procGetClipboardData.Call(f)
			if h == 0 {
				continue // the owner failed to render it
			}
			var data []byte
			var rerr error
			switch kind {
			case winGlobal:
				data, rerr = globalBytes(h)
			case winEnhMetafile:
				n, _, _ := procGetEnhMetaFileBits.Call(h, 0, 0)
				if n > 0 && n <= maxSavedFormat {
					data = make([]byte, n)
					procGetEnhMetaFileBits.Call(h, n, uintptr(unsafe.Pointer(&data[0])))
				}
			}
			if rerr != nil {
				b.log.Debug("clipboard format not saved", "format", uint32(f), "err", rerr)
				continue
			}
			s.items = append(s.items, winItem{format: uint32(f), kind: kind, data: data})
		}
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// markers keep a clipboard write out of Win+V history, the cloud clipboard and
// clipboard monitors: our temporary text is not something the user copied, and the
// restored content was already recorded when the user first copied it.
func (b *osBackend) setMarkers(have map[uint32]bool) error {
	zero := []byte{0, 0, 0, 0} // DWORD 0
	for _, f := range []uint32{b.exclude, b.history, b.cloud} {
		if f == 0 || have[f] {
			continue
		}
		if err := setGlobal(f, zero); err != nil {
			return err
		}
	}
	return nil
}

// write owns the clipboard with text. Temporary text (pasted, then replaced by
// what the clipboard held) is kept out of history and monitors; the text of
// clipboard mode is the user's to paste, an ordinary copy.
func (b *osBackend) write(ctx context.Context, text string, temporary bool) (*ownership, error) {
	u, err := windows.UTF16FromString(text)
	if err != nil {
		return nil, fmt.Errorf("text contains a NUL character: %w", err)
	}
	data := unsafe.Slice((*byte)(unsafe.Pointer(&u[0])), len(u)*2)
	err = withClipboard(ctx, func() error {
		if r, _, err := procEmptyClipboard.Call(); r == 0 {
			return fmt.Errorf("EmptyClipboard: %w", err)
		}
		if err := setGlobal(cfUnicodeText, data); err != nil {
			return err
		}
		if !temporary {
			return nil
		}
		return b.setMarkers(nil)
	})
	if err != nil {
		return nil, err
	}
	return &ownership{seq: sequence()}, nil
}

func (b *osBackend) stillOurs(o *ownership) bool { return o.matches(sequence()) }

// restore puts the snapshot back if nobody wrote to the clipboard since our text. The
// check happens with the clipboard open, so nothing can slip in between.
func (b *osBackend) restore(ctx context.Context, s *snapshot, o *ownership) (bool, error) {
	restored := false
	err := withClipboard(ctx, func() error {
		if !o.matches(sequence()) {
			return nil
		}
		if r, _, err := procEmptyClipboard.Call(); r == 0 {
			return fmt.Errorf("EmptyClipboard: %w", err)
		}
		restored = true
		have := map[uint32]bool{}
		var errs []error
		for _, it := range s.items {
			have[it.format] = true
			var err error
			if it.kind == winEnhMetafile {
				err = setEnhMetafile(it.data)
			} else {
				err = setGlobal(it.format, it.data)
			}
			errs = append(errs, err)
		}
		if len(s.items) > 0 {
			errs = append(errs, b.setMarkers(have))
		}
		return errors.Join(errs...)
	})
	return restored, err
}

// keysDown lists the virtual keys held now. Generic Shift/Ctrl/Alt are skipped in
// favour of their left/right codes, which are what can be lifted and pressed again.
func (b *osBackend) keysDown() ([]uint32, error) {
	var down []uint32
	for vk := uint32(0x08); vk <= 0xFE; vk++ {
		if vk >= 0x10 && vk <= 0x12 || vk == 0xE7 { // VK_SHIFT/CONTROL/MENU, VK_PACKET
			continue
		}
		if win32.KeyDown(vk) {
			down = append(down, vk)
		}
	}
	return down, nil
}

func (b *osBackend) isModifier(vk uint32) bool {
	return vk >= 0xA0 && vk <= 0xA5 || vk == 0x5B || vk == 0x5C
}

func extended(vk uint32) bool {
	switch vk {
	case 0xA3, 0xA5, 0x5B, 0x5C, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x2D, 0x2E:
		return true // right Ctrl/Alt, Win keys, navigation block
	}
	return false
}

// send injects the events in one SendInput call, so nothing the user types interleaves.
func (b *osBackend) send(keys []keyEvent) error {
	in := make([]win32.Key, len(keys))
	for i, k := range keys {
		scan, _, _ := procMapVirtualKeyW.Call(uintptr(k.code), mapvkVKToVSC)
		in[i] = win32.Key{VK: uint16(k.code), Scan: uint16(scan)}
		if !k.down {
			in[i].Flags |= win32.KeyUp
		}
		if extended(k.code) {
			in[i].Flags |= win32.KeyExtended
		}
	}
	return win32.SendKeys(in)
}

// use: one route serves every window here.
func (b *osBackend) use(uint64) {}
