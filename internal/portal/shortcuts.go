package portal

import (
	"context"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// IfaceGlobalShortcuts is the GlobalShortcuts portal's interface.
const IfaceGlobalShortcuts = "org.freedesktop.portal.GlobalShortcuts"

// Shortcut is one shortcut to bind.
type Shortcut struct {
	// ID names it in the Activated and Deactivated signals.
	ID string
	// Description is what the desktop's dialog and settings show.
	Description string
	// Trigger is the preferred trigger in the shortcuts spec's syntax
	// (Trigger makes one); "" leaves the choice to the user.
	Trigger string
}

// Bound is a shortcut the desktop bound.
type Bound struct {
	ID          string
	Description string
	// TriggerDescription is how to trigger it, for people ("Ctrl+Space");
	// "" when the desktop does not say.
	TriggerDescription string
}

// Activation is one Activated or Deactivated signal of a shortcut.
type Activation struct {
	ID string
	// Active: true for Activated (the keys went down), false for
	// Deactivated (they came up).
	Active bool
	// Millis is the signal's timestamp: milliseconds from an undefined base.
	Millis uint64
}

// Shortcuts is a GlobalShortcuts session.
type Shortcuts struct {
	*Session
	events   chan Activation
	closed   chan struct{} // closed when the portal closes the session
	unwatch  func()
	once     sync.Once
	closeErr error
}

// GlobalShortcuts creates a GlobalShortcuts session. Its Activations
// arrive on Events until Close.
func (c *Conn) GlobalShortcuts(ctx context.Context) (*Shortcuts, error) {
	g := &Shortcuts{events: make(chan Activation, 16), closed: make(chan struct{})}
	// Listen before the session exists: the session path is only known
	// from the answer, and the filter below reads it then.
	var mu sync.Mutex
	var path dbus.ObjectPath
	var closedOnce sync.Once
	unwatchSession, err := c.watch(ifaceSession, func(s *dbus.Signal) {
		mu.Lock()
		p := path
		mu.Unlock()
		if s.Name == ifaceSession+".Closed" && s.Path == p {
			closedOnce.Do(func() { close(g.closed) })
		}
	})
	if err != nil {
		return nil, err
	}
	unwatch, err := c.watch(IfaceGlobalShortcuts, func(s *dbus.Signal) {
		mu.Lock()
		p := path
		mu.Unlock()
		a, ok := parseActivation(s, p)
		if !ok {
			return
		}
		select {
		case g.events <- a:
		default:
			c.log.Warn("shortcut signal dropped: nobody reads them", "id", a.ID, "active", a.Active)
		}
	})
	if err != nil {
		unwatchSession()
		return nil, err
	}
	g.unwatch = func() { unwatch(); unwatchSession() }
	s, err := c.createSession(ctx, IfaceGlobalShortcuts)
	if err != nil {
		g.unwatch()
		return nil, err
	}
	mu.Lock()
	path = s.path
	mu.Unlock()
	g.Session = s
	return g, nil
}

// parseActivation reads Activated(o session, s id, t timestamp, a{sv}) and
// Deactivated (the same) of session.
func parseActivation(s *dbus.Signal, session dbus.ObjectPath) (Activation, bool) {
	var a Activation
	switch s.Name {
	case IfaceGlobalShortcuts + ".Activated":
		a.Active = true
	case IfaceGlobalShortcuts + ".Deactivated":
	default:
		return a, false
	}
	if len(s.Body) < 3 || session == "" {
		return a, false
	}
	sp, ok1 := s.Body[0].(dbus.ObjectPath)
	id, ok2 := s.Body[1].(string)
	ts, ok3 := s.Body[2].(uint64)
	if !ok1 || !ok2 || !ok3 || sp != session {
		return a, false
	}
	a.ID, a.Millis = id, ts
	return a, true
}

// Bind binds the shortcuts. The desktop usually asks the user first (a
// dialog where the trigger can be changed); ErrCancelled means they said
// no. A session can bind once.
func (g *Shortcuts) Bind(ctx context.Context, shortcuts []Shortcut) ([]Bound, error) {
	type entry struct {
		ID      string
		Options map[string]dbus.Variant
	}
	list := make([]entry, 0, len(shortcuts))
	for _, s := range shortcuts {
		o := map[string]dbus.Variant{"description": dbus.MakeVariant(s.Description)}
		if s.Trigger != "" {
			o["preferred_trigger"] = dbus.MakeVariant(s.Trigger)
		}
		list = append(list, entry{s.ID, o})
	}
	res, err := g.c.request(ctx, IfaceGlobalShortcuts+".BindShortcuts", nil, g.path, list, "")
	if err != nil {
		return nil, err
	}
	return parseBound(res["shortcuts"])
}

// parseBound reads the a(sa{sv}) list of a BindShortcuts answer.
func parseBound(v dbus.Variant) ([]Bound, error) {
	if v.Signature().String() == "" {
		return nil, nil // no list: nothing bound
	}
	var raw []struct {
		ID      string
		Options map[string]dbus.Variant
	}
	if err := dbus.Store([]any{v.Value()}, &raw); err != nil {
		return nil, fmt.Errorf("BindShortcuts: read the bound shortcuts (%s): %w", v.Signature(), err)
	}
	out := make([]Bound, 0, len(raw))
	for _, r := range raw {
		b := Bound{ID: r.ID}
		b.Description, _ = r.Options["description"].Value().(string)
		b.TriggerDescription, _ = r.Options["trigger_description"].Value().(string)
		out = append(out, b)
	}
	return out, nil
}

// Events are the session's activations, in order.
func (g *Shortcuts) Events() <-chan Activation { return g.events }

// Closed is closed when the portal ends the session itself.
func (g *Shortcuts) Closed() <-chan struct{} { return g.closed }

// Close ends the session and stops its events. Idempotent.
func (g *Shortcuts) Close() error {
	g.once.Do(func() {
		g.unwatch()
		g.closeErr = g.Session.Close()
	})
	return g.closeErr
}
