package portal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// RecordID is the record hotkey's shortcut id at the portal.
const RecordID = "record"

// bindTimeout bounds the wait for the user's answer to the desktop's dialog.
const bindTimeout = 10 * time.Minute

// RecordShortcut is the record hotkey as a shortcut of the desktop, bound
// through the GlobalShortcuts portal: its signals drive the hotkey until
// Close.
type RecordShortcut struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// RecordOptions configure StartRecord.
type RecordOptions struct {
	// Trigger is the preferred trigger (Trigger makes it); "" lets the
	// user choose.
	Trigger string
	// Drive feeds a key action to the record hotkey (hotkey.Listener.Command).
	Drive func(hotkey.Command) error
	// Bound reports, once, how the binding went: the shortcuts bound, or
	// why none was (ErrCancelled when the user said no). It must not block.
	Bound func(b []Bound, err error)
}

// StartRecord connects to the portal and binds the record shortcut in the
// background: the desktop may show a dialog that waits for the user.
func StartRecord(ctx context.Context, o RecordOptions, log *slog.Logger) *RecordShortcut {
	ctx, cancel := context.WithCancel(ctx)
	r := &RecordShortcut{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.run(ctx, o, log.With("pkg", "portal"))
	}()
	return r
}

// Close unbinds the shortcut (the session ends) and waits for the route to stop.
func (r *RecordShortcut) Close() error {
	r.cancel()
	<-r.done
	return nil
}

func (r *RecordShortcut) run(ctx context.Context, o RecordOptions, log *slog.Logger) {
	c, err := Connect(ctx, log)
	if err != nil {
		o.Bound(nil, err)
		return
	}
	defer c.Close()
	g, err := c.GlobalShortcuts(ctx)
	if err != nil {
		o.Bound(nil, fmt.Errorf("global shortcuts session: %w", err))
		return
	}
	defer g.Close()
	bctx, bcancel := context.WithTimeout(ctx, bindTimeout)
	bound, err := g.Bind(bctx, []Shortcut{{ID: RecordID, Description: "Dictate (hold to talk)", Trigger: o.Trigger}})
	bcancel()
	if err == nil && !hasID(bound, RecordID) {
		err = errors.New("the desktop bound no key to the record shortcut")
	}
	if ctx.Err() != nil {
		return // closing: nobody waits for news
	}
	o.Bound(bound, err)
	if err != nil {
		return
	}
	log.Info("record shortcut bound through the GlobalShortcuts portal", "trigger", triggerOf(bound, RecordID))
	var hold Hold
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.Closed():
			log.Warn("the desktop closed the global shortcuts session; `whisperkey ptt` still drives the hotkey")
			return
		case a := <-g.Events():
			if a.ID != RecordID {
				continue
			}
			act := hold.Signal(a.Active)
			log.Debug("record shortcut", "active", a.Active, "action", act.String(), "hold_proven", hold.Proven())
			if err := o.Drive(act); err != nil {
				log.Warn("record shortcut: the hotkey refused", "action", act.String(), "err", err)
			}
		}
	}
}

func hasID(b []Bound, id string) bool {
	return slices.ContainsFunc(b, func(x Bound) bool { return x.ID == id })
}

// triggerOf is how the desktop says the shortcut id is triggered.
func triggerOf(b []Bound, id string) string {
	if i := slices.IndexFunc(b, func(x Bound) bool { return x.ID == id }); i >= 0 {
		return b[i].TriggerDescription
	}
	return ""
}
