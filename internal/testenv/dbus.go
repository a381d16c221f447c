package testenv

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// PrivateBus starts a dbus-daemon of the test's own (session policy: any client
// may own any name) and returns its address; the test's cleanup stops it. Tests
// point code that uses the system bus at it through DBUS_SYSTEM_BUS_ADDRESS.
func PrivateBus(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		Require(t, "dbus-daemon", "apt-get install dbus")
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("dbus-daemon printed no address: %v", sc.Err())
	}
	return strings.TrimSpace(sc.Text())
}

// Logind stands in for systemd-logind on a bus: it owns org.freedesktop.login1
// and emits the Manager's PrepareForSleep signal.
type Logind struct{ conn *dbus.Conn }

// NewLogind connects to the bus at addr and takes logind's name.
func NewLogind(t testing.TB, addr string) *Logind {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	reply, err := conn.RequestName("org.freedesktop.login1", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.login1: reply %v, %v", reply, err)
	}
	return &Logind{conn: conn}
}

// Sleep emits PrepareForSleep(true), as logind does before suspending, and
// PrepareForSleep(false) for resume.
func (l *Logind) Sleep(t testing.TB, sleeping bool) {
	t.Helper()
	if err := l.conn.Emit("/org/freedesktop/login1", "org.freedesktop.login1.Manager.PrepareForSleep", sleeping); err != nil {
		t.Fatalf("emit PrepareForSleep(%v): %v", sleeping, err)
	}
}

// LogindSession is a login session on the stand-in: the one this process
// belongs to, as logind's session/auto names it.
type LogindSession struct{ props *prop.Properties }

// logindManager answers the Manager's GetSession for the one session.
type logindManager struct {
	id   string
	path dbus.ObjectPath
}

func (m logindManager) GetSession(id string) (dbus.ObjectPath, *dbus.Error) {
	if id != m.id {
		return "", dbus.NewError("org.freedesktop.login1.NoSuchSession", []any{"No session '" + id + "' known"})
	}
	return m.path, nil
}

// Session puts session id on the stand-in, active and unlocked, and makes
// it the caller's (session/auto). Active is announced with its value, as
// logind does; LockedHint as invalidated, which the D-Bus specification
// allows, so a watcher's reading it again is tested too.
func (l *Logind) Session(t testing.TB, id string) *LogindSession {
	t.Helper()
	const iface = "org.freedesktop.login1.Session"
	path := dbus.ObjectPath("/org/freedesktop/login1/session/_" + id)
	if err := l.conn.Export(logindManager{id: id, path: path}, "/org/freedesktop/login1", "org.freedesktop.login1.Manager"); err != nil {
		t.Fatal(err)
	}
	if _, err := prop.Export(l.conn, "/org/freedesktop/login1/session/auto", prop.Map{iface: {
		"Id": {Value: id, Emit: prop.EmitConst}}}); err != nil {
		t.Fatal(err)
	}
	props, err := prop.Export(l.conn, path, prop.Map{iface: {
		"Id":         {Value: id, Emit: prop.EmitConst},
		"Active":     {Value: true, Emit: prop.EmitTrue},
		"LockedHint": {Value: false, Emit: prop.EmitInvalidates},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &LogindSession{props: props}
}

// Set changes one of the session's properties (Active, LockedHint) and
// emits PropertiesChanged.
func (s *LogindSession) Set(name string, v bool) {
	s.props.SetMust("org.freedesktop.login1.Session", name, v)
}

// ServeNotifications puts s on the session bus as the desktop's notification
// service (org.freedesktop.Notifications), as a notification daemon is; the
// test's cleanup takes it off.
func ServeNotifications(t testing.TB, s any) {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connect session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: reply %v, %v (another notification daemon on this bus?)", reply, err)
	}
}
