//go:build windows

package output

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/win32"
)

// Verified insertion on Windows: the text goes on the clipboard with delayed rendering
// (SetClipboardData with no data), so Windows asks our window for it with
// WM_RENDERFORMAT at the moment a program reads it: that message is the proof the
// target read it. The monitor-exclusion markers keep clipboard history from asking first.

var (
	procMsgWait          = user32.NewProc("MsgWaitForMultipleObjectsEx")
	procGetClipboardOwnr = user32.NewProc("GetClipboardOwner")
)

const (
	wmRenderFormat      = 0x0305
	wmRenderAllFormats  = 0x0306
	wmDestroyClipboard  = 0x0307
	qsAllInput          = 0x04FF
	mwmoInputAvailable  = 0x4
	vkShift             = 0x10
	vkInsert            = 0x2D
	renderClassTemplate = "WhisperKeyClipboard%p"
)

// matches reports whether seq is the clipboard as we left it: right after our write,
// or right after we rendered the text for a reader (rendering changes the number).
func (o *ownership) matches(seq uintptr) bool {
	return seq == o.seq || o.rendered != nil && seq == o.rendered.Load()
}

// renderer owns the clipboard's text with delayed rendering, from a message-only
// window on a locked OS thread.
type renderer struct {
	log    *slog.Logger
	reqs   chan func()
	wake   windows.Handle
	quit   chan struct{}
	done   chan struct{}
	hwnd   uintptr
	proc   uintptr // the window procedure: one callback per renderer, made once
	mu     sync.Mutex
	text   []byte // UTF-16LE with the terminating NUL; nil once someone else owns the clipboard
	cur    *winOffer
	closed bool
}

type winOffer struct {
	read     chan struct{}
	readOnce sync.Once
	rendered atomic.Uintptr
}

func newRenderer(log *slog.Logger) (*renderer, error) {
	ev, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("clipboard renderer: %w", err)
	}
	r := &renderer{log: log, reqs: make(chan func(), 1), wake: ev, quit: make(chan struct{}), done: make(chan struct{})}
	r.proc = windows.NewCallback(r.wndProc)
	started := make(chan error, 1)
	go r.run(started)
	if err := <-started; err != nil {
		windows.CloseHandle(ev)
		return nil, err
	}
	return r, nil
}

func (r *renderer) run(started chan<- error) {
	defer close(r.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	hwnd, err := win32.Window(win32.Class{Name: fmt.Sprintf(renderClassTemplate, r), WndProc: r.proc}, 0, "", 0, 0, 0, 0, 0, win32.HWNDMessage)
	if err != nil {
		started <- fmt.Errorf("clipboard renderer: %w", err)
		return
	}
	r.hwnd = hwnd
	defer win32.DestroyWindow(hwnd) // sends WM_RENDERALLFORMATS while we still own the text
	started <- nil
	for {
		// Sent messages (WM_RENDERFORMAT from the reader's thread) are delivered while we wait here.
		procMsgWait.Call(1, uintptr(unsafe.Pointer(&r.wake)), windows.INFINITE, qsAllInput, mwmoInputAvailable)
		win32.PumpMessages()
		select {
		case <-r.quit:
			return
		case f := <-r.reqs:
			f()
		default:
		}
	}
}

func (r *renderer) wndProc(hwnd, message, wparam, lparam uintptr) uintptr {
	switch message {
	case wmRenderFormat:
		if wparam == cfUnicodeText {
			r.render()
		}
		return 0
	case wmRenderAllFormats:
		// We are going away while the text is ours: leave it behind for real.
		if ok, _, _ := procOpenClipboard.Call(hwnd); ok != 0 {
			if owner, _, _ := procGetClipboardOwnr.Call(); owner == hwnd {
				r.render()
			}
			procCloseClipboard.Call()
		}
		return 0
	case wmDestroyClipboard:
		r.mu.Lock()
		r.text, r.cur = nil, nil
		r.mu.Unlock()
		return 0
	}
	return win32.DefWindowProc(hwnd, message, wparam, lparam)
}

// render hands the text to the clipboard, which the reader has open, and marks the read.
func (r *renderer) render() {
	r.mu.Lock()
	text, o := r.text, r.cur
	r.mu.Unlock()
	if text == nil {
		return
	}
	if err := setGlobal(cfUnicodeText, text); err != nil {
		r.log.Warn("cannot render the clipboard text", "err", err)
		return
	}
	if o != nil {
		o.rendered.Store(sequence())
		o.readOnce.Do(func() { close(o.read) })
	}
}

func (r *renderer) do(f func()) error {
	ran := make(chan struct{})
	select {
	case r.reqs <- func() { f(); close(ran) }:
	case <-r.done:
		return errors.New("clipboard renderer closed")
	}
	windows.SetEvent(r.wake)
	select {
	case <-ran:
		return nil
	case <-r.done:
		return errors.New("clipboard renderer closed")
	}
}

// offer puts text on the clipboard for delayed rendering, with the monitor markers.
func (r *renderer) offer(ctx context.Context, b *osBackend, text string) (*ownership, error) {
	u, err := windows.UTF16FromString(text)
	if err != nil {
		return nil, fmt.Errorf("text contains a NUL character: %w", err)
	}
	data := append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&u[0])), len(u)*2)...)
	o := &winOffer{read: make(chan struct{})}
	var own *ownership
	e := r.do(func() {
		deadline := time.Now().Add(time.Second)
		for {
			if ok, _, _ := procOpenClipboard.Call(r.hwnd); ok != 0 {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				err = errors.New("open the clipboard: another program holds it")
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		defer procCloseClipboard.Call()
		if ok, _, e := procEmptyClipboard.Call(); ok == 0 {
			err = fmt.Errorf("EmptyClipboard: %w", e)
			return
		}
		r.mu.Lock()
		r.text, r.cur = data, o
		r.mu.Unlock()
		procSetClipboardData.Call(cfUnicodeText, 0) // delayed: WM_RENDERFORMAT when read
		if err = b.setMarkers(nil); err != nil {
			return
		}
		own = &ownership{seq: sequence(), read: o.read, rendered: &o.rendered}
	})
	if e != nil {
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	return own, nil
}

func (r *renderer) close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	r.mu.Unlock()
	close(r.quit)
	windows.SetEvent(r.wake)
	<-r.done
	windows.CloseHandle(r.wake)
}

// pasteStyle reads the target window's class: consoles and terminals get their key.
func (b *osBackend) pasteStyle(target uint64) pasteStyle {
	if target == 0 {
		return pasteCtrlV
	}
	class := windowClass(target)
	s := terminalStyle(class, "")
	b.log.Debug("paste keystroke chosen by window class", "class", class, "keys", s)
	return s
}

func (b *osBackend) writeFor(ctx context.Context, text string, _ uint64, _ pasteStyle) (*ownership, error) {
	if b.render == nil {
		return b.write(ctx, text, true)
	}
	own, err := b.render.offer(ctx, b, text)
	if err != nil {
		b.log.Warn("cannot use delayed rendering; restoring after a fixed delay", "err", err)
		return b.write(ctx, text, true)
	}
	return own, nil
}

func (b *osBackend) pasteSeq(s pasteStyle) []keyEvent {
	switch s {
	case pasteCtrlShiftV:
		return []keyEvent{{vkControl, true}, {vkShift, true}, {vkV, true}, {vkV, false}, {vkShift, false}, {vkControl, false}}
	case pasteShiftInsert:
		return []keyEvent{{vkShift, true}, {vkInsert, true}, {vkInsert, false}, {vkShift, false}}
	}
	return []keyEvent{{vkControl, true}, {vkV, true}, {vkV, false}, {vkControl, false}}
}

// typeText sends the text as KEYEVENTF_UNICODE input: one UTF-16 unit per event, so
// no keyboard layout is involved. Newlines go as Enter.
func (b *osBackend) typeText(ctx context.Context, text string) error {
	var in []win32.Key
	for _, r := range text {
		if r == '\r' {
			continue
		}
		if r == '\n' {
			in = append(in, win32.Key{VK: vkReturn}, win32.Key{VK: vkReturn, Flags: win32.KeyUp})
			continue
		}
		for _, u := range windows.StringToUTF16(string(r)) {
			if u == 0 {
				continue
			}
			in = append(in, win32.Key{Scan: u, Flags: win32.KeyUnicode}, win32.Key{Scan: u, Flags: win32.KeyUnicode | win32.KeyUp})
		}
	}
	// In chunks, so a long text does not fill the input queue in one go.
	for len(in) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := in[:min(len(in), 64)]
		if err := win32.SendKeys(chunk); err != nil {
			return fmt.Errorf("type the text: %w", err)
		}
		in = in[len(chunk):]
	}
	return nil
}
