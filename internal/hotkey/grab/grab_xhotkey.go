//go:build !linux && !windows

package grab

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	xhotkey "golang.design/x/hotkey"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// reg is one x/hotkey registration: a combination maps to one, or for modifier-only
// combinations to several (each modifier in turn as "the key", left and right).
type reg struct {
	mods []xhotkey.Modifier
	key  xhotkey.Key
}

// grabRegs registers regs for c. It succeeds when at least one registration did.
func grabRegs(log *slog.Logger, c hotkey.Combo, regs []reg) (hotkey.Grab, error) {
	gr := &grab{fwd: newForwarder()}
	var taken, other error
	for _, r := range regs {
		hk := xhotkey.New(r.mods, r.key)
		if err := hk.Register(); err != nil {
			// x/hotkey's errors are unexported; its conflict message says "taken" on every OS.
			if strings.Contains(err.Error(), "taken") {
				taken = hotkey.ErrTaken
			} else if other == nil {
				other = err
			}
			log.Debug("registration failed", "hotkey", c.String(), "key", uint32(r.key), "err", err)
			continue
		}
		// Take the channels now: Unregister replaces them, and reading them later would race.
		down, up := hk.Keydown(), hk.Keyup()
		gr.hks = append(gr.hks, hk)
		gr.wg.Add(1)
		go gr.take(down, up)
	}
	if len(gr.hks) == 0 {
		gr.fwd.close()
		if taken != nil {
			return nil, fmt.Errorf("register %s: %w", c, taken)
		}
		return nil, fmt.Errorf("register %s: %w", c, other)
	}
	if len(gr.hks) < len(regs) {
		log.Info("hotkey partly registered", "hotkey", c.String(), "registered", len(gr.hks), "of", len(regs))
	}
	return gr, nil
}

// grab is a registered combination: one goroutine per x/hotkey registration takes its
// events, and one forwarder hands them to the Listener.
type grab struct {
	hks  []*xhotkey.Hotkey
	fwd  *forwarder
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

func (gr *grab) Edges() <-chan hotkey.Edge { return gr.fwd.Edges() }

// take turns x/hotkey's events into edges until Unregister closes its channels.
// x/hotkey reports downs and ups on two channels, so their order survives only if they
// are taken the moment they arrive: the forwarder queues them while the Listener is
// busy. After Release take keeps draining (the forwarder drops what it gets), since
// x/hotkey blocks until read.
func (gr *grab) take(down, up <-chan xhotkey.Event) {
	defer gr.wg.Done()
	for down != nil || up != nil {
		select {
		case _, ok := <-down:
			if !ok {
				down = nil
			} else {
				gr.fwd.push(hotkey.Edge{Down: true, At: time.Now()})
			}
		case _, ok := <-up:
			if !ok {
				up = nil
			} else {
				gr.fwd.push(hotkey.Edge{Down: false, At: time.Now()})
			}
		}
	}
}

// Release unregisters the combination and waits for its goroutines. Idempotent.
func (gr *grab) Release() error {
	gr.once.Do(func() {
		gr.fwd.close() // first: edges still arriving are dropped, as before
		var errs []error
		for _, hk := range gr.hks {
			if err := hk.Unregister(); err != nil {
				errs = append(errs, fmt.Errorf("unregister %v: %w", hk, err))
			}
		}
		gr.wg.Wait()
		gr.err = errors.Join(errs...)
	})
	return gr.err
}
