package evdev

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// kernelEvent is struct input_event as C lays it out on this machine.
type kernelEvent struct {
	Time  unix.Timeval
	Type  uint16
	Code  uint16
	Value int32
}

// The bytes the reader decodes are the C struct's own memory, and the test
// encoder writes the same.
func TestKernelLayout(t *testing.T) {
	if unsafe.Sizeof(kernelEvent{}) != eventSize {
		t.Fatalf("sizeof(struct input_event) = %d, eventSize = %d", unsafe.Sizeof(kernelEvent{}), eventSize)
	}
	at := time.Unix(1764220000, 123456000)
	ke := kernelEvent{Time: unix.NsecToTimeval(at.UnixNano()), Type: evKey, Code: kSpace, Value: keyRepeat}
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&ke)), unsafe.Sizeof(ke))
	want := event{at: at, typ: evKey, code: kSpace, value: keyRepeat}
	if got := decode(mem); got != want {
		t.Errorf("decode(kernel bytes) = %+v, want %+v", got, want)
	}
	if got := encode(want); string(got) != string(mem) {
		t.Errorf("encode = % x\nkernel  % x", got, mem)
	}
	if runtime.GOARCH == "amd64" && eventSize != 24 {
		t.Errorf("eventSize %d on amd64, want 24", eventSize)
	}
	// EVIOCGKEY(96) and EVIOCGBIT(EV_KEY, 96), as linux/input.h computes them.
	if got := evioc(nrGetKey, 96); got != 0x80604518 {
		t.Errorf("EVIOCGKEY(96) = %#x", got)
	}
	if got := evioc(nrGetBit+evKey, 96); got != 0x80604521 {
		t.Errorf("EVIOCGBIT(EV_KEY, 96) = %#x", got)
	}
}

// Discovery skips whatever in the folder is not an input device, each with
// a log line, and follows the folder: a file added later is looked at too.
func TestDiscovery(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("not a device"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("event0")
	write("mouse0") // not event*: never opened
	if err := os.Mkdir(filepath.Join(dir, "event1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "event2"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A character device that is not an event device: the ioctl says ENOTTY.
	if err := os.Symlink("/dev/null", filepath.Join(dir, "event3")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "event4"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "event5")); err != nil {
		t.Fatal(err)
	}

	log, lb := newLog(t)
	before := runtime.NumGoroutine()
	g, err := watch(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	for name, kind := range map[string]string{"event0": "regular file", "event1": "folder", "event2": "a FIFO",
		"event3": "inappropriate ioctl", "event4": "socket"} {
		lb.waitFor(t, "skipped: not an input device", filepath.Join(dir, name), kind)
	}
	lb.waitFor(t, "not read", "event5") // a dangling link: gone between the listing and the open
	if strings.Contains(lb.String(), "mouse0") {
		t.Errorf("mouse0 was looked at:\n%s", lb.String())
	}
	lb.waitFor(t, "reading keyboards", "keyboards=0")

	write("event9") // hot-plug: inotify reports it
	lb.waitFor(t, "skipped: not an input device", filepath.Join(dir, "event9"))
	if kb := g.Keyboards(); len(kb) != 0 {
		t.Errorf("keyboards %v in a folder of plain files", kb)
	}
	if r, k := Count(dir); r != 6 || k != 0 {
		// event0 event2 event3 event4 event9 and the folder event1 pass access(R_OK)
		t.Errorf("Count = %d readable, %d keyboards; want 6, 0", r, k)
	}
	closeWithin(t, g)
	waitGoroutines(t, before)
}

// A device whose read fails with ENODEV (unplugged) is dropped with one
// log line; a combination held on it goes up.
func TestUnplugged(t *testing.T) {
	log, lb := newLog(t)
	g := newGrabber(log)
	c, _ := hotkey.Parse("ctrl+f9")
	gr, err := g.Grab(c)
	if err != nil {
		t.Fatal(err)
	}
	dev := &unplug{data: frames(t0, down(keyLeftCtrl), down(kF9))}
	g.attach("/dev/input/event7", dev, nil)
	for _, want := range []bool{true, false} {
		select {
		case e := <-gr.Edges():
			if e.Down != want || !e.Sure {
				t.Fatalf("edge %+v, want down=%v", e, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no edge (down=%v)", want)
		}
	}
	lb.waitFor(t, "keyboard gone", "event7")
	if n := strings.Count(lb.String(), "event7"); n != 1 {
		t.Errorf("%d log lines about the unplugged keyboard, want 1:\n%s", n, lb.String())
	}
	if kb := g.Keyboards(); len(kb) != 0 {
		t.Errorf("still reading %v", kb)
	}
	if !dev.closed {
		t.Error("the unplugged device was not closed")
	}
	_ = gr.Release()
	closeWithin(t, g)
}

// unplug is a device that sends data, then fails as an unplugged one does.
type unplug struct {
	data   []byte
	closed bool
}

func (u *unplug) Read(p []byte) (int, error) {
	if len(u.data) == 0 {
		return 0, &os.PathError{Op: "read", Path: "/dev/input/event7", Err: syscall.ENODEV}
	}
	n := copy(p, u.data)
	u.data = u.data[n:]
	return n, nil
}

func (u *unplug) Close() error { u.closed = true; return nil }

// Key events written into a real file descriptor (a pipe, read through the
// runtime poller as an event device is) drive a hotkey.Listener: the record
// hotkey starts and stops dictation, Esc with it held cancels, and Close ends
// a read that waits for a key.
func TestListenerOverPipe(t *testing.T) {
	log, _ := newLog(t)
	before := runtime.NumGoroutine()
	g := newGrabber(log)
	laptop, usb := pipe(t), pipe(t)
	g.attach("laptop", laptop.r, nil)
	g.attach("usb", usb.r, nil)
	l, err := hotkey.New(hotkey.Config{Record: "ctrl+win", Mode: choice.Hold}, log, g)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	laptop.send(t, frames(now, down(keyLeftCtrl)))
	usb.send(t, frames(now.Add(20*time.Millisecond), down(keyLeftMeta), rep(keyLeftMeta)))
	expectRecord(t, l, hotkey.Start)
	usb.send(t, frames(now.Add(500*time.Millisecond), up(keyLeftMeta)))
	expectRecord(t, l, hotkey.Stop)
	laptop.send(t, frames(now.Add(time.Second), up(keyLeftCtrl)))

	usb.send(t, frames(now.Add(2*time.Second), down(keyRightCtrl), down(keyRightMeta)))
	expectRecord(t, l, hotkey.Start)
	// Esc with ctrl+win still held: the cancel key registered for this recording.
	laptop.send(t, frames(now.Add(3*time.Second), down(kEsc), up(kEsc)))
	expectRecord(t, l, hotkey.Cancel)
	usb.send(t, frames(now.Add(4*time.Second), up(keyRightMeta), up(keyRightCtrl)))

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	closeWithin(t, g) // the readers wait in read(2) on the pipes: Close ends them
	waitGoroutines(t, before)
}

type pipeDev struct{ r, w *os.File }

func pipe(t *testing.T) pipeDev {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return pipeDev{r, w}
}

func (p pipeDev) send(t *testing.T, b []byte) {
	t.Helper()
	if _, err := p.w.Write(b); err != nil {
		t.Fatal(err)
	}
}

// closeWithin closes g and fails when that takes longer than 5 s.
func closeWithin(t *testing.T, g *Grabber) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = g.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: a reader is still blocked")
	}
}

// waitGoroutines fails when goroutines started since before are still running after 5 s.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The ioctls need a real keyboard, which no CI machine has (a VM without
// /dev/input and a kernel without uinput to make one).
func TestRealKeyboard(t *testing.T) {
	readable, keyboards := Count(Dir)
	if keyboards == 0 {
		t.Skipf("no /dev/input keyboard on this machine (%d readable event devices; CI VMs have none and no uinput to make one); "+
			"run it on a desktop, as a member of the input group: go test -count=1 -run '^TestRealKeyboard$' -v ./internal/hotkey/evdev/", readable)
	}
	log, lb := newLog(t)
	g, err := New(log)
	if err != nil {
		t.Fatal(err)
	}
	kb := g.Keyboards()
	if len(kb) != keyboards {
		t.Errorf("reading %v, Count found %d keyboards", kb, keyboards)
	}
	for _, p := range kb {
		f, name, err := openKeyboard(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		keys, err := keysDown(f)
		_ = f.Close()
		if err != nil {
			t.Errorf("%s (%s): %v", p, name, err)
		}
		t.Logf("%s: %q, %d keys down", p, name, len(keys))
	}
	lb.waitFor(t, "reading keyboard", "name=")
	closeWithin(t, g)
	// The keyboards are read, not grabbed: a second reader opens them too.
	g2, err := New(log)
	if err != nil {
		t.Fatalf("second New: %v", err)
	}
	closeWithin(t, g2)
}

var _ io.ReadCloser = (*unplug)(nil)
