//go:build linux

package power

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// logind's names for a session (org.freedesktop.login1.Session).
const (
	// sessionAuto is the caller's session, or, for a caller outside any
	// session, the user's graphical one. That is what a desktop's autostart
	// needs: GNOME and KDE start autostart programs as systemd user units,
	// outside the login session's cgroup, where GetSessionByPID finds
	// nothing and XDG_SESSION_ID is not set. It is an alias: the signals
	// come from the session's own path, which GetSession names.
	sessionAuto      = "/org/freedesktop/login1/session/auto"
	sessionInterface = "org.freedesktop.login1.Session"
	propsInterface   = "org.freedesktop.DBus.Properties"
	propActive       = "Active"
	propLockedHint   = "LockedHint"
)

// askTimeout bounds each question to logind: a bus that does not answer
// must not hold up the start.
const askTimeout = 5 * time.Second

// osSession holds a private system-bus connection, as osWatcher does.
type osSession struct {
	log     *slog.Logger
	conn    *dbus.Conn
	path    dbus.ObjectPath
	signals chan *dbus.Signal
	done    chan struct{}
	once    sync.Once
	// active and locked are the session's properties as last heard; only
	// run touches them after the start.
	active, locked bool
}

func newOSSession(log *slog.Logger, open func(bool)) (*osSession, error) {
	conn, err := dbus.ConnectSystemBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the system bus to ask logind about this session: %w", err)
	}
	s := &osSession{log: log, conn: conn, signals: make(chan *dbus.Signal, 8), done: make(chan struct{})}
	if err := s.start(); err != nil {
		conn.Close()
		return nil, err
	}
	s.log.Info("following the login session", "session", string(s.path), "active", s.active, "locked", s.locked)
	open(s.open())
	go s.run(open)
	return s, nil
}

// start finds the session, subscribes to its changes, then reads its
// state: subscribing first, so a change meanwhile is not missed.
func (s *osSession) start() error {
	path, err := findSession(s.conn)
	if err != nil {
		return err
	}
	s.path = path
	if err := s.conn.AddMatchSignal(dbus.WithMatchSender(logindName), dbus.WithMatchObjectPath(path),
		dbus.WithMatchInterface(propsInterface), dbus.WithMatchMember("PropertiesChanged"),
		dbus.WithMatchArg(0, sessionInterface)); err != nil {
		return fmt.Errorf("subscribe to the changes of logind's session %s: %w", path, err)
	}
	s.conn.Signal(s.signals)
	return s.read()
}

// findSession names this process's session object (see sessionAuto).
func findSession(conn *dbus.Conn) (dbus.ObjectPath, error) {
	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	var id string
	if err := conn.Object(logindName, sessionAuto).CallWithContext(ctx, propsInterface+".Get", 0,
		sessionInterface, "Id").Store(&id); err != nil {
		return "", fmt.Errorf("ask logind for this process's session: %w", err)
	}
	var path dbus.ObjectPath
	if err := conn.Object(logindName, logindPath).CallWithContext(ctx, logindInterface+".GetSession", 0,
		id).Store(&path); err != nil {
		return "", fmt.Errorf("ask logind for session %q: %w", id, err)
	}
	return path, nil
}

// read gets Active and LockedHint.
func (s *osSession) read() error {
	ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
	defer cancel()
	obj := s.conn.Object(logindName, s.path)
	for _, p := range []struct {
		name string
		to   *bool
	}{{propActive, &s.active}, {propLockedHint, &s.locked}} {
		if err := obj.CallWithContext(ctx, propsInterface+".Get", 0, sessionInterface, p.name).Store(p.to); err != nil {
			return fmt.Errorf("read %s of logind's session %s: %w", p.name, s.path, err)
		}
	}
	return nil
}

func (s *osSession) open() bool { return s.active && !s.locked }

// run reads signals until the connection closes, which closes s.signals.
func (s *osSession) run(open func(bool)) {
	defer close(s.done)
	was := s.open()
	for sig := range s.signals {
		if sig.Path != s.path || sig.Name != propsInterface+".PropertiesChanged" || len(sig.Body) != 3 {
			continue
		}
		if iface, _ := sig.Body[0].(string); iface != sessionInterface {
			continue
		}
		changed, _ := sig.Body[1].(map[string]dbus.Variant)
		invalidated, _ := sig.Body[2].([]string)
		s.apply(changed)
		if slices.Contains(invalidated, propActive) || slices.Contains(invalidated, propLockedHint) {
			// Announced without the values: ask for them.
			if err := s.read(); err != nil && !errors.Is(err, dbus.ErrClosed) {
				s.log.Warn("cannot read the login session's state; keeping the last known", "err", err)
			}
		}
		if now := s.open(); now != was {
			was = now
			s.log.Info("login session changed", "active", s.active, "locked", s.locked)
			open(now)
		}
	}
}

// apply takes the values a PropertiesChanged carries.
func (s *osSession) apply(changed map[string]dbus.Variant) {
	if v, ok := changed[propActive].Value().(bool); ok {
		s.active = v
	}
	if v, ok := changed[propLockedHint].Value().(bool); ok {
		s.locked = v
	}
}

func (s *osSession) close() error {
	var err error
	s.once.Do(func() {
		err = s.conn.Close() // godbus closes the signal channel, which ends run
		<-s.done
	})
	return err
}

func sessionOpen() (bool, error) {
	conn, err := dbus.ConnectSystemBus()
	if err != nil {
		return false, fmt.Errorf("connect to the system bus to ask logind about this session: %w", err)
	}
	defer conn.Close()
	s := &osSession{conn: conn}
	if s.path, err = findSession(conn); err != nil {
		return false, err
	}
	if err := s.read(); err != nil {
		return false, err
	}
	return s.open(), nil
}
