//go:build linux

package evdev

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// Dir is where the kernel's event devices are.
const Dir = "/dev/input"

// Grabber reads every keyboard and matches the registered combinations on
// their keys together; it implements hotkey.Grabber. It takes no key from
// anyone: the devices are opened for reading, never grabbed (EVIOCGRAB), so
// the focused window still gets every key, the hotkey's too. Its edges are
// sure (hotkey.Edge.Sure): the kernel reports every down, up and repeat.
type Grabber struct {
	log   *slog.Logger
	board *board
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once

	mu      sync.Mutex
	closed  bool
	devices map[string]io.Closer // open keyboards by path
	watcher io.Closer            // the hot-plug watch (Linux); nil when none
}

func newGrabber(log *slog.Logger) *Grabber {
	return &Grabber{log: log, board: newBoard(), stop: make(chan struct{}), devices: map[string]io.Closer{}}
}

// Grab registers c on every keyboard, those plugged in later too.
func (g *Grabber) Grab(c hotkey.Combo) (hotkey.Grab, error) {
	if c.Key != 0 && codesOf(c.Key) == nil {
		return nil, fmt.Errorf("register %s: no Linux key code for %q", c, c.Key)
	}
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("register %s: the keyboard reader is closed", c)
	}
	return g.board.add(c), nil
}

// SetOpen says whether keys count: true while this user's session is the
// one in front and unlocked. The keyboards are the seat's, so they also
// carry what is typed on the lock screen and in another user's session;
// there (false) no combination fires, and one held when it closes goes up
// at once, ending a hold-to-talk recording. A key held across the reopening
// fires nothing until it is pressed again. The readers keep reading all the
// while, so that they know which keys are down. Open at the start.
func (g *Grabber) SetOpen(open bool) {
	deliver(g.board.setShut(!open, time.Now()), g.stop)
}

// Keyboards lists the paths of the keyboards read now.
func (g *Grabber) Keyboards() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Sorted(maps.Keys(g.devices))
}

// attach starts reading the keyboard at path from r until r fails or
// Close. resync reads the keys it holds (EVIOCGKEY); nil means none. It
// reports false, closing r, when path is read already or g is closed.
func (g *Grabber) attach(path string, r io.ReadCloser, resync func() ([]uint16, error)) bool {
	g.mu.Lock()
	if _, dup := g.devices[path]; dup || g.closed {
		g.mu.Unlock()
		_ = r.Close()
		return false
	}
	g.devices[path] = r
	g.wg.Add(1)
	g.mu.Unlock()
	s := &stream{dev: path, board: g.board, resync: resync}
	if resync != nil {
		// Keys already held (Ctrl while the keyboard is plugged in) count
		// toward a combination, so they are known from the start.
		if down, err := resync(); err == nil {
			deliver(g.board.reset(path, down, time.Now()), g.stop)
		}
	}
	go func() {
		defer g.wg.Done()
		err := s.run(r, func(out []fired) { deliver(out, g.stop) })
		// The keyboard's keys no longer count: a combination held on it goes up.
		deliver(g.board.reset(path, nil, time.Now()), g.stop)
		g.mu.Lock()
		mine := g.devices[path] == r
		if mine {
			delete(g.devices, path)
		}
		g.mu.Unlock()
		if !mine {
			return // Close took it
		}
		_ = r.Close()
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ENODEV) {
			g.log.Info("keyboard gone", "device", path)
		} else {
			g.log.Warn("keyboard read failed; no longer read", "device", path, "err", err)
		}
	}()
	return true
}

// Close stops the hot-plug watch and every reader and waits for them; the
// reads end as their files close. Release the grabs first (the Listener's
// Close does). Idempotent.
func (g *Grabber) Close() error {
	g.once.Do(func() {
		close(g.stop)
		g.mu.Lock()
		g.closed = true
		devices, watcher := g.devices, g.watcher
		g.devices, g.watcher = map[string]io.Closer{}, nil
		g.mu.Unlock()
		if watcher != nil {
			_ = watcher.Close()
		}
		for _, d := range devices {
			_ = d.Close()
		}
		g.wg.Wait()
	})
	return nil
}
