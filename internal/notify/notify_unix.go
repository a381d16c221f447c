//go:build !windows

package notify

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/godbus/dbus/v5"
)

const (
	busName   = "org.freedesktop.Notifications"
	busPath   = "/org/freedesktop/Notifications"
	busMethod = busName + ".Notify"
)

// osNotifier talks to org.freedesktop.Notifications over a private session-bus connection.
type osNotifier struct {
	cfg  Config
	log  *slog.Logger
	conn *dbus.Conn
	// ids remembers the id per kind, so a message replaces its older self instead of piling up.
	ids map[Kind]uint32
}

func newOSNotifier(cfg Config, log *slog.Logger) (*osNotifier, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the D-Bus session bus: %w", err)
	}
	return &osNotifier{cfg: cfg, log: log, conn: conn, ids: map[Kind]uint32{}}, nil
}

func (o *osNotifier) show(m Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.cfg.Timeout)
	defer cancel()
	urgency := byte(1)
	expire := int32(-1) // the server's default
	if m.Urgent {
		urgency = 2
		expire = 0 // never: the user must see it
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(urgency),
		"desktop-entry": dbus.MakeVariant("whisperkey"),
		"category":      dbus.MakeVariant("device"),
	}
	if m.Transient {
		hints["transient"] = dbus.MakeVariant(true)
	}
	var id uint32
	call := o.conn.Object(busName, busPath).CallWithContext(ctx, busMethod, 0,
		o.cfg.AppName, o.ids[m.Kind.group()], "audio-input-microphone", m.Summary, m.Body, []string{}, hints, expire)
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("call %s: %w", busMethod, err)
	}
	o.ids[m.Kind.group()] = id
	return nil
}

func (o *osNotifier) close() error { return o.conn.Close() }

// group is the kind whose notification m replaces on screen: "back" and "changed" (the
// default stands in) take the place of "lost", so "cannot record" does not linger;
// "nothing heard" takes the place of "recording".
func (k Kind) group() Kind {
	if k == KindMicBack || k == KindMicChanged {
		return KindMicLost
	}
	if k == KindNothingHeard {
		return KindRecording
	}
	return k
}
