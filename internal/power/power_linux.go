//go:build linux

package power

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/godbus/dbus/v5"
)

// logind's names (org.freedesktop.login1.Manager).
const (
	logindName      = "org.freedesktop.login1"
	logindPath      = "/org/freedesktop/login1"
	logindInterface = "org.freedesktop.login1.Manager"
	prepareForSleep = "PrepareForSleep"
)

// osWatcher holds a private system-bus connection (godbus honours
// DBUS_SYSTEM_BUS_ADDRESS, which is how tests point it at a bus of their own).
type osWatcher struct {
	log     *slog.Logger
	conn    *dbus.Conn
	signals chan *dbus.Signal
	done    chan struct{}
	once    sync.Once
}

func newOSWatcher(log *slog.Logger, resumed func()) (*osWatcher, error) {
	conn, err := dbus.ConnectSystemBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the system bus to hear about sleep: %w", err)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchSender(logindName), dbus.WithMatchObjectPath(logindPath),
		dbus.WithMatchInterface(logindInterface), dbus.WithMatchMember(prepareForSleep)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("subscribe to logind's %s: %w", prepareForSleep, err)
	}
	w := &osWatcher{log: log, conn: conn, signals: make(chan *dbus.Signal, 8), done: make(chan struct{})}
	conn.Signal(w.signals)
	go w.run(resumed)
	return w, nil
}

// run reads signals until the connection closes, which closes w.signals.
func (w *osWatcher) run(resumed func()) {
	defer close(w.done)
	for sig := range w.signals {
		if sig.Path != logindPath || sig.Name != logindInterface+"."+prepareForSleep || len(sig.Body) != 1 {
			continue
		}
		sleeping, ok := sig.Body[0].(bool)
		if !ok {
			continue
		}
		if sleeping {
			w.log.Info("going to sleep")
			continue
		}
		w.log.Info("resumed from sleep")
		resumed()
	}
}

func (w *osWatcher) close() error {
	var err error
	w.once.Do(func() {
		err = w.conn.Close() // godbus closes the signal channel, which ends run
		<-w.done
	})
	return err
}
