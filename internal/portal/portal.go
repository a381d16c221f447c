package portal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The portal's bus name and object, and the interfaces every portal shares.
const (
	BusName       = "org.freedesktop.portal.Desktop"
	ObjectPath    = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	ifaceRequest  = "org.freedesktop.portal.Request"
	ifaceSession  = "org.freedesktop.portal.Session"
	ifaceProps    = "org.freedesktop.DBus.Properties"
	requestPrefix = "/org/freedesktop/portal/desktop/request/"
)

var (
	// ErrCancelled is response 1: the user dismissed the portal's dialog.
	ErrCancelled = errors.New("cancelled in the desktop's dialog")
	// ErrFailed is response 2: the portal ended the request some other way.
	ErrFailed = errors.New("the desktop portal refused the request")
	// ErrClosed means the connection was closed while a request waited.
	ErrClosed = errors.New("portal connection closed")
)

// Conn is one connection to the desktop portal. It routes the portal's
// signals (request responses, shortcut activations) to whoever waits for
// them; Close stops that and every session opened through it.
type Conn struct {
	bus    *dbus.Conn
	log    *slog.Logger
	sender string // our unique name as the portal spells it in request paths
	obj    dbus.BusObject

	sigs chan *dbus.Signal
	done chan struct{} // closed when the dispatcher ends
	once sync.Once

	mu      sync.Mutex
	tokens  int
	waiting map[dbus.ObjectPath]chan response
	// watchers get every signal of an interface (GlobalShortcuts'
	// Activated, a session's Closed); they must not block.
	watchers map[int]func(*dbus.Signal)
	nextW    int
}

type response struct {
	code    uint32
	results map[string]dbus.Variant
}

// Connect opens the session bus (DBUS_SESSION_BUS_ADDRESS) for the portal.
func Connect(ctx context.Context, log *slog.Logger) (*Conn, error) {
	bus, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("connect to the session bus: %w", err)
	}
	c := newConn(bus, log)
	c.register(ctx)
	return c, nil
}

func newConn(bus *dbus.Conn, log *slog.Logger) *Conn {
	c := &Conn{
		bus: bus, log: log.With("pkg", "portal"), obj: bus.Object(BusName, ObjectPath),
		sender: strings.ReplaceAll(strings.TrimPrefix(bus.Names()[0], ":"), ".", "_"),
		sigs:   make(chan *dbus.Signal, 16), done: make(chan struct{}),
		waiting: map[dbus.ObjectPath]chan response{}, watchers: map[int]func(*dbus.Signal){},
	}
	bus.Signal(c.sigs)
	go c.dispatch()
	return c
}

// Close ends the connection; sessions opened through it end with it (the
// portal closes a session whose owner left the bus).
func (c *Conn) Close() error {
	var err error
	c.once.Do(func() {
		err = c.bus.Close() // closes c.sigs, which ends dispatch
		<-c.done
	})
	return err
}

// AppID is the application id WhisperKey registers with the portal: the
// name of the .desktop file a package installs. Portals since 1.19 file
// a host program's shortcuts and permissions under it, and newer ones
// refuse GlobalShortcuts to a program without one.
const AppID = "io.github.whisperkey.WhisperKey"

// register tells the portal who we are (org.freedesktop.host.portal.Registry);
// it must come before any other portal call on the connection. A portal
// older than 1.19 has no registry: then it is skipped.
func (c *Conn) register(ctx context.Context) {
	err := c.obj.CallWithContext(ctx, "org.freedesktop.host.portal.Registry.Register", 0, AppID, map[string]dbus.Variant{}).Err
	if err != nil {
		c.log.Debug("not registered with the portal as "+AppID, "err", err)
	}
}

// Version is the version property of a portal interface, 0 when the portal
// lacks it.
func (c *Conn) Version(ctx context.Context, iface string) (uint32, error) {
	return version(ctx, c.obj, iface)
}

// version reads iface's version property from the portal object obj.
func version(ctx context.Context, obj dbus.BusObject, iface string) (uint32, error) {
	var v dbus.Variant
	if err := obj.CallWithContext(ctx, ifaceProps+".Get", 0, iface, "version").Store(&v); err != nil {
		return 0, fmt.Errorf("ask the portal for %s: %w", iface, err)
	}
	n, ok := v.Value().(uint32)
	if !ok {
		return 0, fmt.Errorf("the portal's %s version is a %s, not a uint32", iface, v.Signature())
	}
	return n, nil
}

func (c *Conn) dispatch() {
	defer close(c.done)
	for s := range c.sigs {
		if s.Name == ifaceRequest+".Response" {
			c.mu.Lock()
			ch := c.waiting[s.Path]
			delete(c.waiting, s.Path)
			c.mu.Unlock()
			if ch != nil {
				ch <- parseResponse(s)
			}
			continue
		}
		c.mu.Lock()
		ws := make([]func(*dbus.Signal), 0, len(c.watchers))
		for _, w := range c.watchers {
			ws = append(ws, w)
		}
		c.mu.Unlock()
		for _, w := range ws {
			w(s)
		}
	}
	c.mu.Lock()
	for p, ch := range c.waiting {
		close(ch)
		delete(c.waiting, p)
	}
	c.mu.Unlock()
}

func parseResponse(s *dbus.Signal) response {
	var r response
	if len(s.Body) != 2 {
		return response{code: 2}
	}
	code, ok1 := s.Body[0].(uint32)
	res, ok2 := s.Body[1].(map[string]dbus.Variant)
	if !ok1 || !ok2 {
		return response{code: 2}
	}
	r.code, r.results = code, res
	return r
}

// watch adds f for the signals of iface on the portal's objects; the
// returned func removes it.
func (c *Conn) watch(iface string, f func(*dbus.Signal)) (func(), error) {
	opts := []dbus.MatchOption{dbus.WithMatchInterface(iface), dbus.WithMatchSender(BusName)}
	if err := c.bus.AddMatchSignal(opts...); err != nil {
		return nil, fmt.Errorf("listen to %s: %w", iface, err)
	}
	c.mu.Lock()
	id := c.nextW
	c.nextW++
	c.watchers[id] = f
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.watchers, id)
		c.mu.Unlock()
		_ = c.bus.RemoveMatchSignal(opts...)
	}, nil
}

// token is a new handle token: a valid object path element, unique on
// this connection.
func (c *Conn) token(kind string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens++
	return fmt.Sprintf("whisperkey_%s%d", kind, c.tokens)
}

// request calls method with args and an options vardict holding a fresh
// handle_token (plus opts), then waits for the Request's Response. It
// listens on the request path the portal will use before calling, so a
// fast answer is not missed.
func (c *Conn) request(ctx context.Context, method string, opts map[string]dbus.Variant, args ...any) (map[string]dbus.Variant, error) {
	tok := c.token("req")
	path := dbus.ObjectPath(requestPrefix + c.sender + "/" + tok)
	ch := make(chan response, 1)
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(path), dbus.WithMatchInterface(ifaceRequest), dbus.WithMatchMember("Response")}
	if err := c.bus.AddMatchSignal(match...); err != nil {
		return nil, fmt.Errorf("%s: listen for the answer: %w", method, err)
	}
	defer func() { _ = c.bus.RemoveMatchSignal(match...) }()
	c.mu.Lock()
	c.waiting[path] = ch
	c.mu.Unlock()
	forget := func(p dbus.ObjectPath) {
		c.mu.Lock()
		delete(c.waiting, p)
		c.mu.Unlock()
	}
	defer forget(path)

	if opts == nil {
		opts = map[string]dbus.Variant{}
	}
	opts["handle_token"] = dbus.MakeVariant(tok)
	var handle dbus.ObjectPath
	if err := c.obj.CallWithContext(ctx, method, 0, append(args, opts)...).Store(&handle); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if handle != path {
		// A portal older than 0.9 picks its own path: listen there too (its
		// answer may already be gone; the dialog then times out by ctx).
		c.log.Debug("portal chose its own request path", "method", method, "path", handle)
		m := []dbus.MatchOption{dbus.WithMatchObjectPath(handle), dbus.WithMatchInterface(ifaceRequest), dbus.WithMatchMember("Response")}
		if err := c.bus.AddMatchSignal(m...); err == nil {
			defer func() { _ = c.bus.RemoveMatchSignal(m...) }()
		}
		c.mu.Lock()
		c.waiting[handle] = ch
		c.mu.Unlock()
		defer forget(handle)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, ErrClosed)
		}
		switch r.code {
		case 0:
			return r.results, nil
		case 1:
			return nil, fmt.Errorf("%s: %w", method, ErrCancelled)
		default:
			return nil, fmt.Errorf("%s: %w (response %d)", method, ErrFailed, r.code)
		}
	case <-ctx.Done():
		// Closing the request dismisses its dialog.
		_ = c.bus.Object(BusName, handle).Call(ifaceRequest+".Close", dbus.FlagNoReplyExpected).Err
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Session is a portal session (GlobalShortcuts, RemoteDesktop); it lasts
// until Close or until the portal closes it.
type Session struct {
	c    *Conn
	path dbus.ObjectPath
	once sync.Once
}

// createSession calls iface's CreateSession with a fresh session token and
// returns the session the Response names.
func (c *Conn) createSession(ctx context.Context, iface string) (*Session, error) {
	opts := map[string]dbus.Variant{"session_handle_token": dbus.MakeVariant(c.token("session"))}
	res, err := c.request(ctx, iface+".CreateSession", opts)
	if err != nil {
		return nil, err
	}
	// The spec types session_handle as a string (a historical mistake);
	// take an object path too.
	var path dbus.ObjectPath
	switch v := res["session_handle"].Value().(type) {
	case string:
		path = dbus.ObjectPath(v)
	case dbus.ObjectPath:
		path = v
	}
	if !path.IsValid() {
		return nil, fmt.Errorf("%s.CreateSession: the portal answered without a session handle", iface)
	}
	return &Session{c: c, path: path}, nil
}

// Path is the session's object path.
func (s *Session) Path() dbus.ObjectPath { return s.path }

// Close ends the session at the portal. Idempotent.
func (s *Session) Close() error {
	var err error
	s.once.Do(func() {
		err = s.c.bus.Object(BusName, s.path).Call(ifaceSession+".Close", 0).Err
		if err != nil {
			err = fmt.Errorf("close the portal session: %w", err)
		}
	})
	return err
}

// Versions are the versions of portal interfaces on the session bus, in
// the order of ifaces, asked over one connection; 0 for each when there is
// no session bus or no portal, and for one the portal lacks. It takes at
// most two seconds.
func Versions(ctx context.Context, ifaces ...string) []uint32 {
	out := make([]uint32, len(ifaces))
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	bus, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return out
	}
	defer bus.Close()
	obj := bus.Object(BusName, ObjectPath)
	for i, iface := range ifaces {
		out[i], _ = version(ctx, obj, iface) // a missing interface is 0
	}
	return out
}
