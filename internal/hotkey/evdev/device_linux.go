package evdev

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// ErrNoKeyboard means no keyboard under /dev/input can be read: there is
// none, or this user may not read it (not in the input group).
var ErrNoKeyboard = errors.New("no readable keyboard under " + Dir)

// Why a file under the directory is not read (errors.Is).
var (
	errNotDevice   = errors.New("not an input event device")
	errNotKeyboard = errors.New("not a keyboard (it lacks the letter keys or space)")
)

// The evdev ioctls (linux/input.h): _IOC(_IOC_READ, 'E', nr, len), in the
// layout of x86, ARM and RISC-V (dir in bits 30-31, size in bits 16-29).
const (
	nrGetName = 0x06 // EVIOCGNAME: the device's name
	nrGetKey  = 0x18 // EVIOCGKEY: the keys down now
	nrGetBit  = 0x20 // EVIOCGBIT(ev): the codes of event type ev the device has
)

func evioc(nr, size uintptr) uintptr { return 2<<30 | size<<16 | uintptr('E')<<8 | nr }

// ioctl fills buf through the read ioctl nr of f.
func ioctl(f *os.File, nr uintptr, buf []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall(unix.SYS_IOCTL, fd, evioc(nr, uintptr(len(buf))), uintptr(unsafe.Pointer(&buf[0])))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// bitmapBytes is the size of a key bitmap: KEY_MAX+1 bits, whole longs.
const bitmapBytes = (keyMax + 1) / 8

// openKeyboard opens path for reading, without grabbing it, when it is a
// keyboard, and returns its name. Otherwise the error wraps errNotDevice,
// errNotKeyboard or the open's own error (fs.ErrPermission without the
// input group).
func openKeyboard(path string) (*os.File, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	if st.Mode()&os.ModeCharDevice == 0 {
		return nil, "", fmt.Errorf("%s: %w (%s)", path, errNotDevice, paths.Kind(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	types := make([]byte, wordSize) // EV_CNT (32) bits
	if err := ioctl(f, nrGetBit, types); err != nil {
		_ = f.Close()
		if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL) {
			return nil, "", fmt.Errorf("%s: %w (%v)", path, errNotDevice, err)
		}
		return nil, "", fmt.Errorf("%s: read its event types: %w", path, err)
	}
	keys := make([]byte, bitmapBytes)
	if !bitSet(types, evKey) {
		_ = f.Close()
		return nil, "", fmt.Errorf("%s: %w", path, errNotKeyboard)
	}
	if err := ioctl(f, nrGetBit+evKey, keys); err != nil {
		_ = f.Close()
		return nil, "", fmt.Errorf("%s: read its keys: %w", path, err)
	}
	if !isKeyboard(keys) {
		_ = f.Close()
		return nil, "", fmt.Errorf("%s: %w", path, errNotKeyboard)
	}
	name := make([]byte, 256)
	if ioctl(f, nrGetName, name) != nil {
		name = nil
	}
	name, _, _ = bytes.Cut(name, []byte{0})
	return f, string(name), nil
}

// keysDown reads the keys f's device holds now (EVIOCGKEY).
func keysDown(f *os.File) ([]uint16, error) {
	buf := make([]byte, bitmapBytes)
	if err := ioctl(f, nrGetKey, buf); err != nil {
		return nil, fmt.Errorf("read the keys down: %w", err)
	}
	return codesSet(buf), nil
}

// Count returns how many event devices under dir this user may read, and
// how many of those are keyboards: what doctor reports for the evdev route.
func Count(dir string) (readable, keyboards int) {
	paths, _ := filepath.Glob(filepath.Join(dir, "event*"))
	for _, p := range paths {
		if unix.Access(p, unix.R_OK) != nil {
			continue
		}
		readable++
		if f, _, err := openKeyboard(p); err == nil {
			keyboards++
			_ = f.Close()
		}
	}
	return readable, keyboards
}

// New reads every keyboard under /dev/input and those plugged in later.
// It fails, wrapping ErrNoKeyboard, when none can be read now.
func New(log *slog.Logger) (*Grabber, error) {
	g, err := watch(Dir, log.With("pkg", "evdev"))
	if err != nil {
		return nil, err
	}
	if kb := g.Keyboards(); len(kb) == 0 {
		_ = g.Close()
		return nil, fmt.Errorf("%w: in the input group? (sudo usermod -aG input $USER, then log in again)", ErrNoKeyboard)
	}
	return g, nil
}

// watch starts following dir (inotify), then opens the keyboards in it:
// watching first, so a keyboard plugged in meanwhile is not missed.
//
// Hot-plug is inotify rather than a rescan on a timer: a keyboard is ready
// the moment udev has made its node readable, and nothing runs while
// nothing changes. The kernel creates the node (IN_CREATE) before udev gives
// it the input group (IN_ATTRIB), so both are tried; a device that goes away
// ends its read with ENODEV, which drops it.
func watch(dir string, log *slog.Logger) (*Grabber, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("watch %s for keyboards: %w", dir, err)
	}
	const mask = unix.IN_CREATE | unix.IN_ATTRIB | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_ONLYDIR
	if _, err := unix.InotifyAddWatch(fd, dir, mask); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("watch %s for keyboards: %w", dir, err)
	}
	// Non-blocking, so the runtime poller reads it and Close ends the read.
	in := os.NewFile(uintptr(fd), "inotify:"+dir)
	g := newGrabber(log)
	g.watcher = in
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.follow(dir, in)
	}()
	g.scan(dir)
	return g, nil
}

// scan tries every event device in dir.
func (g *Grabber) scan(dir string) {
	paths, _ := filepath.Glob(filepath.Join(dir, "event*"))
	for _, p := range paths {
		g.try(p)
	}
	g.log.Info("reading keyboards", "dir", dir, "keyboards", len(g.Keyboards()))
}

// try opens path when it is a keyboard not read yet, and says in the log
// why not otherwise.
func (g *Grabber) try(path string) {
	g.mu.Lock()
	_, open := g.devices[path]
	g.mu.Unlock()
	if open {
		return // an attribute change of a keyboard read already
	}
	f, name, err := openKeyboard(path)
	switch {
	case errors.Is(err, errNotDevice):
		g.log.Info("skipped: not an input device", "path", path, "err", err)
		return
	case errors.Is(err, errNotKeyboard), errors.Is(err, os.ErrPermission), errors.Is(err, os.ErrNotExist):
		// Other input devices, or a node udev has not given the input group yet.
		g.log.Debug("not read", "path", path, "err", err)
		return
	case err != nil:
		g.log.Warn("cannot read input device", "path", path, "err", err)
		return
	}
	if g.attach(path, f, func() ([]uint16, error) { return keysDown(f) }) {
		g.log.Info("reading keyboard", "device", path, "name", name)
	}
}

// follow reads dir's inotify events from in until in is closed.
func (g *Grabber) follow(dir string, in *os.File) {
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := in.Read(buf)
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				g.log.Warn("no longer following keyboards plugged in", "dir", dir, "err", err)
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name, _, _ := bytes.Cut(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], []byte{0})
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				g.scan(dir) // events were lost: look at everything again
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_IGNORED) != 0:
				g.log.Warn("the input folder went away; no longer following keyboards plugged in", "dir", dir)
				return
			case strings.HasPrefix(string(name), "event"):
				g.try(filepath.Join(dir, string(name)))
			}
		}
	}
}
