package evdev

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// uinput requests (linux/uinput.h).
const (
	uiDevCreate  = 0x5501     // _IO('U', 1)
	uiDevDestroy = 0x5502     // _IO('U', 2)
	uiDevSetup   = 0x405c5503 // _IOW('U', 3, struct uinput_setup): 92 bytes
	uiSetEvBit   = 0x40045564 // _IOW('U', 100, int)
	uiSetKeyBit  = 0x40045565 // _IOW('U', 101, int)
	uiGetSysname = 0x8040552c // UI_GET_SYSNAME(64): _IOC(_IOC_READ, 'U', 44, 64)
)

// uinputKeyboard is a keyboard the kernel makes from what we write
// (/dev/uinput): a real event device, for the ioctls and reads CI cannot
// test for want of one.
type uinputKeyboard struct {
	f    *os.File
	node string // the device's major:minor, from sysfs
}

func newUinputKeyboard(t *testing.T, name string) *uinputKeyboard {
	t.Helper()
	f, err := os.OpenFile("/dev/uinput", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no uinput to make a keyboard with (%v): CI's kernel lacks CONFIG_INPUT_UINPUT; run it as root where /dev/uinput exists: "+
			"go test -count=1 -run '^TestUinputKeyboard$' -v ./internal/hotkey/evdev/", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	fd := f.Fd()
	ctl := func(req, arg uintptr) {
		t.Helper()
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, req, arg); errno != 0 {
			t.Fatalf("uinput ioctl %#x: %v", req, errno)
		}
	}
	ctl(uiSetEvBit, evKey)
	for _, k := range append(slices.Clone(keyboardKeys), keyLeftCtrl, keyRightCtrl, keyLeftMeta, keyLeftShift, kEsc, kF9) {
		ctl(uiSetKeyBit, uintptr(k))
	}
	var setup [92]byte                             // struct uinput_setup: input_id (bustype, vendor, product, version), name[80], ff_effects_max
	binary.NativeEndian.PutUint16(setup[0:], 0x06) // BUS_VIRTUAL
	binary.NativeEndian.PutUint16(setup[2:], 0x574b)
	copy(setup[8:87], name)
	ctl(uiDevSetup, uintptr(unsafe.Pointer(&setup[0])))
	ctl(uiDevCreate, 0)
	t.Cleanup(func() { _, _, _ = unix.Syscall(unix.SYS_IOCTL, fd, uiDevDestroy, 0) })

	sys := make([]byte, 64)
	ctl(uiGetSysname, uintptr(unsafe.Pointer(&sys[0])))
	sys, _, _ = bytes.Cut(sys, []byte{0})
	// The event device shows in sysfs once the kernel has made it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		devs, _ := filepath.Glob(filepath.Join("/sys/class/input", string(sys), "event*", "dev"))
		if len(devs) == 1 {
			b, err := os.ReadFile(devs[0])
			if err != nil {
				t.Fatal(err)
			}
			return &uinputKeyboard{f: f, node: strings.TrimSpace(string(b))}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no event device in sysfs for %s", sys)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mknod makes the keyboard's device node at path, as devtmpfs and udev would.
func (u *uinputKeyboard) mknod(t *testing.T, path string) {
	t.Helper()
	maj, min, ok := strings.Cut(u.node, ":")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("device number %q", u.node)
	}
	if err := unix.Mknod(path, unix.S_IFCHR|0o600, int(unix.Mkdev(uint32(a), uint32(b)))); err != nil {
		t.Skipf("cannot make a device node (%v): run as root", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("cannot open a device node in %s (%v): its file system is mounted nodev; set TMPDIR to another", filepath.Dir(path), err)
	}
	_ = f.Close()
}

// press writes key events, each followed by SYN_REPORT, as a driver does.
func (u *uinputKeyboard) press(t *testing.T, keys ...event) {
	t.Helper()
	if _, err := u.f.Write(frames(time.Now(), keys...)); err != nil {
		t.Fatal(err)
	}
}

func (u *uinputKeyboard) destroy(t *testing.T) {
	t.Helper()
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, u.f.Fd(), uiDevDestroy, 0); errno != 0 {
		t.Fatalf("UI_DEV_DESTROY: %v", errno)
	}
}

// A real keyboard made by the kernel: the discovery's ioctls, hot-plug (its
// node appears in a watched folder), key state (EVIOCGKEY), the record
// hotkey through a hotkey.Listener, and the keyboard's removal (ENODEV).
func TestUinputKeyboard(t *testing.T) {
	kb := newUinputKeyboard(t, "whisperkey test keyboard")
	dir := t.TempDir()
	log, lb := newLog(t)
	g, err := watch(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	defer closeWithin(t, g)
	node := filepath.Join(dir, "event0")
	kb.mknod(t, node)
	lb.waitFor(t, "reading keyboard", node, "whisperkey test keyboard")

	l, err := hotkey.New(hotkey.Config{Record: "ctrl+win", Mode: choice.Hold}, log, g)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	expect := func(kind hotkey.Kind) {
		t.Helper()
		select {
		case ev := <-l.Events():
			if ev.Kind != kind {
				t.Fatalf("event %s, want %s", ev.Kind, kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s event", kind)
		}
	}
	kb.press(t, down(keyLeftCtrl), down(keyLeftMeta))
	expect(hotkey.Start)

	// EVIOCGKEY on a second reader of the same device sees both keys down.
	f, name, err := openKeyboard(node)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := keysDown(f)
	_ = f.Close()
	if err != nil || !slices.Contains(keys, keyLeftCtrl) || !slices.Contains(keys, keyLeftMeta) {
		t.Errorf("keys down on %q: %v, %v; want ctrl and meta", name, keys, err)
	}
	kb.press(t, up(keyLeftMeta), up(keyLeftCtrl))
	expect(hotkey.Stop)

	// A reader opened while Ctrl is held learns it from EVIOCGKEY: Win
	// alone then completes ctrl+win.
	kb.press(t, down(keyLeftCtrl))
	time.Sleep(50 * time.Millisecond) // the kernel has the key down before the second reader opens
	log2, lb2 := newLog(t)
	g2, err := watch(dir, log2)
	if err != nil {
		t.Fatal(err)
	}
	defer closeWithin(t, g2)
	lb2.waitFor(t, "reading keyboard", node)
	l2, err := hotkey.New(hotkey.Config{Record: "ctrl+win", Mode: choice.Hold}, log2, g2)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	kb.press(t, down(keyLeftMeta))
	expect(hotkey.Start)
	select {
	case ev := <-l2.Events():
		if ev.Kind != hotkey.Start {
			t.Errorf("second reader: %s, want start", ev.Kind)
		}
	case <-time.After(5 * time.Second):
		t.Error("second reader: no start: the Ctrl held when it opened was not read")
	}
	if r, k := Count(dir); r != 1 || k != 1 {
		t.Errorf("Count = %d readable, %d keyboards; want 1, 1", r, k)
	}

	// Removing the keyboard ends both recordings (their keys count as up).
	kb.destroy(t)
	expect(hotkey.Stop)
	lb.waitFor(t, "keyboard gone", node)
	if n := strings.Count(lb.String(), "keyboard gone"); n != 1 {
		t.Errorf("%d lines about the removed keyboard, want 1:\n%s", n, lb.String())
	}
	if got := g.Keyboards(); len(got) != 0 {
		t.Errorf("still reading %v", got)
	}
	if err := os.Remove(node); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Error(err)
	}
}
