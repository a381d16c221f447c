package testenv

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// Portal stands in for xdg-desktop-portal and a desktop behind it on a bus,
// the way the local HTTP server stands in for Hugging Face: it owns
// org.freedesktop.portal.Desktop and implements the GlobalShortcuts and
// RemoteDesktop portals as their specification says (a Request answered by
// its Response signal, sessions, Activated and Deactivated). It is strict:
// every argument and option type a client sends is checked against the
// spec, and what is wrong is refused with a D-Bus error and kept in
// Problems, which the test's cleanup reports as failures.
type Portal struct {
	t    testing.TB
	conn *dbus.Conn

	mu       sync.Mutex
	problems []string
	sessions map[dbus.ObjectPath]*portalSession
	// bindAnswer and startAnswer are the Response codes of BindShortcuts
	// and Start: 0 the user agreed, 1 cancelled, 2 failed.
	bindAnswer, startAnswer uint32
	// Triggers are the preferred triggers BindShortcuts was given, by id.
	triggers map[string]string
	// dialogs counts the RemoteDesktop approvals the user was asked for;
	// a valid restore token skips the dialog.
	dialogs int
	tokens  map[string]bool // restore tokens handed out and not used yet
	issued  int
	keys    []PortalKey
	// called are the clients that made a portal call, and registered
	// those that registered an app id (which must come first).
	called, registered map[string]bool
}

// PortalKey is one NotifyKeyboardKeysym call.
type PortalKey struct {
	Keysym  int32
	Pressed bool
}

type portalSession struct {
	owner    string
	kind     string // "shortcuts" or "remote"
	bound    bool
	selected bool
	devices  uint32
	persist  uint32
	token    string
	started  bool
}

const (
	portalPath     = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	ifaceShortcuts = "org.freedesktop.portal.GlobalShortcuts"
	ifaceRemote    = "org.freedesktop.portal.RemoteDesktop"
)

// NewPortal connects to the bus at addr and serves the portals there until
// the test ends.
func NewPortal(t testing.TB, addr string) *Portal {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	p := &Portal{t: t, conn: conn, sessions: map[dbus.ObjectPath]*portalSession{},
		triggers: map[string]string{}, tokens: map[string]bool{}, called: map[string]bool{}, registered: map[string]bool{}}
	t.Cleanup(func() {
		conn.Close()
		for _, pr := range p.Problems() {
			t.Errorf("test portal: client broke the spec: %s", pr)
		}
	})
	for iface, v := range map[string]any{ifaceShortcuts: shortcutsIface{p}, ifaceRemote: remoteIface{p},
		"org.freedesktop.host.portal.Registry": registry{p}} {
		if err := conn.Export(v, portalPath, iface); err != nil {
			t.Fatal(err)
		}
	}
	_, err = prop.Export(conn, portalPath, prop.Map{
		ifaceShortcuts: {"version": {Value: uint32(1)}},
		ifaceRemote:    {"version": {Value: uint32(2)}, "AvailableDeviceTypes": {Value: uint32(1 | 2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.portal.Desktop", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.portal.Desktop: reply %v, %v", reply, err)
	}
	return p
}

// AnswerBind sets the Response code of the next BindShortcuts: 0 the
// user agrees, 1 they cancel the dialog, 2 it fails.
func (p *Portal) AnswerBind(code uint32) {
	p.mu.Lock()
	p.bindAnswer = code
	p.mu.Unlock()
}

// AnswerStart sets the Response code of RemoteDesktop's Start dialog.
func (p *Portal) AnswerStart(code uint32) {
	p.mu.Lock()
	p.startAnswer = code
	p.mu.Unlock()
}

// Problems are the client's breaches of the spec so far.
func (p *Portal) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.problems)
}

// TakeProblems returns the breaches so far and forgets them: for a test
// that makes them on purpose.
func (p *Portal) TakeProblems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.problems
	p.problems = nil
	return out
}

// Trigger is the preferred trigger the client asked for shortcut id.
func (p *Portal) Trigger(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.triggers[id]
}

// Dialogs is how many times the user was asked to allow remote control.
func (p *Portal) Dialogs() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dialogs
}

// Keys are the keyboard events the client sent through RemoteDesktop.
func (p *Portal) Keys() []PortalKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.keys)
}

// WaitBound waits until a GlobalShortcuts session has bound its shortcuts.
func (p *Portal) WaitBound(t testing.TB, within time.Duration) {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if p.bound() {
			return
		}
	}
	t.Fatalf("no client bound its shortcuts within %s", within)
}

func (p *Portal) bound() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sessions {
		if s.kind == "shortcuts" && s.bound {
			return true
		}
	}
	return false
}

// Press emits Activated for shortcut id in every session that bound it,
// as the desktop does when its keys go down; Release emits Deactivated.
func (p *Portal) Press(t testing.TB, id string)   { p.signal(t, "Activated", id) }
func (p *Portal) Release(t testing.TB, id string) { p.signal(t, "Deactivated", id) }

func (p *Portal) signal(t testing.TB, member, id string) {
	t.Helper()
	p.mu.Lock()
	var paths []dbus.ObjectPath
	for path, s := range p.sessions {
		if s.kind == "shortcuts" && s.bound {
			paths = append(paths, path)
		}
	}
	p.mu.Unlock()
	if len(paths) == 0 {
		t.Fatalf("%s %q: no session has bound shortcuts", member, id)
	}
	for _, path := range paths {
		err := p.conn.Emit(portalPath, ifaceShortcuts+"."+member, path, id, uint64(time.Now().UnixMilli()), map[string]dbus.Variant{})
		if err != nil {
			t.Fatalf("emit %s: %v", member, err)
		}
	}
}

func (p *Portal) problem(format string, args ...any) *dbus.Error {
	msg := fmt.Sprintf(format, args...)
	p.mu.Lock()
	p.problems = append(p.problems, msg)
	p.mu.Unlock()
	return dbus.NewError("org.freedesktop.portal.Error.InvalidArgument", []any{msg})
}

var pathElement = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// option checks that key, when present or required, holds a value of sig.
func (p *Portal) option(method string, opts map[string]dbus.Variant, key, sig string, required bool) (any, *dbus.Error) {
	v, ok := opts[key]
	switch {
	case !ok && required:
		return nil, p.problem("%s: options lack %s (%s)", method, key, sig)
	case !ok:
		return nil, nil
	case v.Signature().String() != sig:
		return nil, p.problem("%s: option %s is %s, the spec types it %s", method, key, v.Signature(), sig)
	}
	return v.Value(), nil
}

// checkOptions refuses keys the spec does not list for method.
func (p *Portal) checkOptions(method string, opts map[string]dbus.Variant, known ...string) *dbus.Error {
	for k := range opts {
		if !slices.Contains(known, k) {
			return p.problem("%s: unknown option %q", method, k)
		}
	}
	return nil
}

type registry struct{ p *Portal }

var appID = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+$`)

// Register is org.freedesktop.host.portal.Registry.Register(s, a{sv}):
// once per connection, before any portal call, with a valid app id.
func (r registry) Register(sender dbus.Sender, id string, opts map[string]dbus.Variant) *dbus.Error {
	p := r.p
	p.mu.Lock()
	called, again := p.called[string(sender)], p.registered[string(sender)]
	p.registered[string(sender)] = true
	p.mu.Unlock()
	switch {
	case again:
		return p.problem("Registry.Register: called twice")
	case called:
		return p.problem("Registry.Register: after a portal call; it must come first")
	case !appID.MatchString(id) || len(id) > 255:
		return p.problem("Registry.Register: %q is not a valid application id", id)
	}
	return p.checkOptions("Registry.Register", opts)
}

// Registered reports whether every client that called the portal
// registered an app id first.
func (p *Portal) Registered() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.called {
		if !p.registered[s] {
			return false
		}
	}
	return len(p.called) > 0
}

// request checks handle_token and returns the Request's path: the one the
// spec says clients can predict.
func (p *Portal) request(method string, sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	p.mu.Lock()
	p.called[string(sender)] = true
	p.mu.Unlock()
	v, err := p.option(method, opts, "handle_token", "s", true)
	if err != nil {
		return "", err
	}
	tok := v.(string)
	if !pathElement.MatchString(tok) {
		return "", p.problem("%s: handle_token %q is not an object path element", method, tok)
	}
	s := strings.ReplaceAll(strings.TrimPrefix(string(sender), ":"), ".", "_")
	return dbus.ObjectPath("/org/freedesktop/portal/desktop/request/" + s + "/" + tok), nil
}

// respond emits the Request's Response soon after the call returns, as a
// portal does once its dialog is answered. It may reach the client before
// the method's reply: clients must listen first.
func (p *Portal) respond(path dbus.ObjectPath, code uint32, results map[string]dbus.Variant) {
	go func() {
		if err := p.conn.Emit(path, "org.freedesktop.portal.Request.Response", code, results); err != nil {
			p.mu.Lock()
			p.problems = append(p.problems, fmt.Sprintf("emit Response on %s: %v", path, err))
			p.mu.Unlock()
		}
	}()
}

// createSession is CreateSession of either portal.
func (p *Portal) createSession(kind, method string, sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	if err := p.checkOptions(method, opts, "handle_token", "session_handle_token"); err != nil {
		return "", err
	}
	req, err := p.request(method, sender, opts)
	if err != nil {
		return "", err
	}
	v, err := p.option(method, opts, "session_handle_token", "s", true)
	if err != nil {
		return "", err
	}
	if !pathElement.MatchString(v.(string)) {
		return "", p.problem("%s: session_handle_token %q is not an object path element", method, v)
	}
	s := strings.ReplaceAll(strings.TrimPrefix(string(sender), ":"), ".", "_")
	path := dbus.ObjectPath("/org/freedesktop/portal/desktop/session/" + s + "/" + v.(string))
	p.mu.Lock()
	if _, dup := p.sessions[path]; dup {
		p.mu.Unlock()
		return "", p.problem("%s: session_handle_token %q used twice", method, v)
	}
	p.sessions[path] = &portalSession{owner: string(sender), kind: kind}
	p.mu.Unlock()
	if err := p.conn.Export(sessionObj{p, path}, path, "org.freedesktop.portal.Session"); err != nil {
		return "", dbus.MakeFailedError(err)
	}
	// The spec types session_handle as a string (s), not an object path.
	p.respond(req, 0, map[string]dbus.Variant{"session_handle": dbus.MakeVariant(string(path))})
	return req, nil
}

// sessionCall starts a method on a session of kind that answers through a
// request: its options checked against known, the request made, the
// session found.
func (p *Portal) sessionCall(method string, sender dbus.Sender, path dbus.ObjectPath, kind string, opts map[string]dbus.Variant, known ...string) (dbus.ObjectPath, *portalSession, *dbus.Error) {
	if err := p.checkOptions(method, opts, known...); err != nil {
		return "", nil, err
	}
	req, err := p.request(method, sender, opts)
	if err != nil {
		return "", nil, err
	}
	s, err := p.session(method, sender, path, kind)
	if err != nil {
		return "", nil, err
	}
	return req, s, nil
}

// session finds the caller's session of kind at path.
func (p *Portal) session(method string, sender dbus.Sender, path dbus.ObjectPath, kind string) (*portalSession, *dbus.Error) {
	p.mu.Lock()
	s := p.sessions[path]
	p.mu.Unlock()
	switch {
	case s == nil:
		return nil, p.problem("%s: no session %s", method, path)
	case s.owner != string(sender):
		return nil, p.problem("%s: session %s belongs to %s, not %s", method, path, s.owner, sender)
	case s.kind != kind:
		return nil, p.problem("%s: session %s is a %s session", method, path, s.kind)
	}
	return s, nil
}

type sessionObj struct {
	p    *Portal
	path dbus.ObjectPath
}

// Close is org.freedesktop.portal.Session.Close.
func (o sessionObj) Close(sender dbus.Sender) *dbus.Error {
	o.p.mu.Lock()
	s := o.p.sessions[o.path]
	if s != nil && s.owner == string(sender) {
		delete(o.p.sessions, o.path)
	}
	o.p.mu.Unlock()
	if s == nil || s.owner != string(sender) {
		return o.p.problem("Session.Close: %s is not a session of %s", o.path, sender)
	}
	_ = o.p.conn.Export(nil, o.path, "org.freedesktop.portal.Session")
	return nil
}

type shortcutsIface struct{ p *Portal }

// CreateSession is GlobalShortcuts.CreateSession(a{sv}) → o.
func (g shortcutsIface) CreateSession(sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return g.p.createSession("shortcuts", "GlobalShortcuts.CreateSession", sender, opts)
}

// newShortcut is one element of BindShortcuts' a(sa{sv}).
type newShortcut struct {
	ID      string
	Options map[string]dbus.Variant
}

// trigger is the shortcuts spec's syntax: modifiers, then one xkbcommon
// keysym name, joined by "+".
var trigger = regexp.MustCompile(`^((CTRL|ALT|SHIFT|NUM|LOGO)\+)*[A-Za-z0-9_]+$`)

// BindShortcuts is GlobalShortcuts.BindShortcuts(o, a(sa{sv}), s, a{sv}) → o.
func (g shortcutsIface) BindShortcuts(sender dbus.Sender, session dbus.ObjectPath, shortcuts []newShortcut, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	const m = "GlobalShortcuts.BindShortcuts"
	p := g.p
	req, s, err := p.sessionCall(m, sender, session, "shortcuts", opts, "handle_token")
	if err != nil {
		return "", err
	}
	if s.bound {
		return "", p.problem("%s: a session can bind its shortcuts once", m)
	}
	if len(shortcuts) == 0 {
		return "", p.problem("%s: no shortcuts", m)
	}
	var bound []newShortcut
	for _, sc := range shortcuts {
		if sc.ID == "" {
			return "", p.problem("%s: a shortcut without an id", m)
		}
		if err := p.checkOptions(m, sc.Options, "description", "preferred_trigger"); err != nil {
			return "", err
		}
		d, err := p.option(m, sc.Options, "description", "s", true)
		if err != nil {
			return "", err
		}
		t, err := p.option(m, sc.Options, "preferred_trigger", "s", false)
		if err != nil {
			return "", err
		}
		if t != nil && !trigger.MatchString(t.(string)) {
			return "", p.problem("%s: preferred_trigger %q does not follow the shortcuts spec", m, t)
		}
		if t == nil {
			t = "CTRL+LOGO+space" // what the user picks in the dialog
		}
		p.mu.Lock()
		p.triggers[sc.ID], _ = t.(string)
		p.mu.Unlock()
		bound = append(bound, newShortcut{ID: sc.ID, Options: map[string]dbus.Variant{
			"description": dbus.MakeVariant(d), "trigger_description": dbus.MakeVariant(t.(string)),
		}})
	}
	p.mu.Lock()
	code := p.bindAnswer
	s.bound = code == 0
	p.mu.Unlock()
	results := map[string]dbus.Variant{}
	if code == 0 {
		results["shortcuts"] = dbus.MakeVariant(bound)
	}
	p.respond(req, code, results)
	return req, nil
}

type remoteIface struct{ p *Portal }

// CreateSession is RemoteDesktop.CreateSession(a{sv}) → o.
func (r remoteIface) CreateSession(sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return r.p.createSession("remote", "RemoteDesktop.CreateSession", sender, opts)
}

// SelectDevices is RemoteDesktop.SelectDevices(o, a{sv}) → o.
func (r remoteIface) SelectDevices(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	const m = "RemoteDesktop.SelectDevices"
	p := r.p
	req, s, err := p.sessionCall(m, sender, session, "remote", opts, "handle_token", "types", "restore_token", "persist_mode")
	if err != nil {
		return "", err
	}
	if s.selected || s.started {
		return "", p.problem("%s: devices are selected once, before Start", m)
	}
	types, err := p.option(m, opts, "types", "u", false)
	if err != nil {
		return "", err
	}
	persist, err := p.option(m, opts, "persist_mode", "u", false)
	if err != nil {
		return "", err
	}
	tok, err := p.option(m, opts, "restore_token", "s", false)
	if err != nil {
		return "", err
	}
	s.selected, s.devices = true, 1|2
	if types != nil {
		if types.(uint32)&^uint32(1|2|4) != 0 || types.(uint32) == 0 {
			return "", p.problem("%s: types %d names no device type", m, types)
		}
		s.devices = types.(uint32) & (1 | 2) // what AvailableDeviceTypes offers
	}
	if persist != nil {
		if persist.(uint32) > 2 {
			return "", p.problem("%s: persist_mode %d is not 0, 1 or 2", m, persist)
		}
		s.persist = persist.(uint32)
	}
	if tok != nil {
		s.token = tok.(string)
	}
	p.respond(req, 0, map[string]dbus.Variant{})
	return req, nil
}

// Start is RemoteDesktop.Start(o, s, a{sv}) → o: the approval dialog,
// skipped when SelectDevices brought a token this portal handed out.
func (r remoteIface) Start(sender dbus.Sender, session dbus.ObjectPath, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	const m = "RemoteDesktop.Start"
	p := r.p
	req, s, err := p.sessionCall(m, sender, session, "remote", opts, "handle_token")
	if err != nil {
		return "", err
	}
	if !s.selected || s.started {
		return "", p.problem("%s: Start comes once, after SelectDevices", m)
	}
	p.mu.Lock()
	code := uint32(0)
	if !p.tokens[s.token] {
		p.dialogs++
		code = p.startAnswer
	}
	delete(p.tokens, s.token) // a token restores once; the answer carries the next
	results := map[string]dbus.Variant{}
	if code == 0 {
		s.started = true
		results["devices"] = dbus.MakeVariant(s.devices)
		if s.persist != 0 {
			p.issued++
			tok := fmt.Sprintf("restore%d", p.issued)
			p.tokens[tok] = true
			results["restore_token"] = dbus.MakeVariant(tok)
		}
	}
	p.mu.Unlock()
	p.respond(req, code, results)
	return req, nil
}

// NotifyKeyboardKeysym is RemoteDesktop.NotifyKeyboardKeysym(o, a{sv}, i, u).
func (r remoteIface) NotifyKeyboardKeysym(sender dbus.Sender, session dbus.ObjectPath, opts map[string]dbus.Variant, keysym int32, state uint32) *dbus.Error {
	const m = "RemoteDesktop.NotifyKeyboardKeysym"
	p := r.p
	if err := p.checkOptions(m, opts); err != nil {
		return err
	}
	s, err := p.session(m, sender, session, "remote")
	if err != nil {
		return err
	}
	switch {
	case !s.started:
		return p.problem("%s: the session has not been started", m)
	case s.devices&1 == 0:
		return p.problem("%s: no keyboard was granted", m)
	case state > 1:
		return p.problem("%s: state %d is not 0 (released) or 1 (pressed)", m, state)
	}
	p.mu.Lock()
	p.keys = append(p.keys, PortalKey{Keysym: keysym, Pressed: state == 1})
	p.mu.Unlock()
	return nil
}
