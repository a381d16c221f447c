package testenv

import (
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

// Player stands in for a media player on a session bus: it owns
// org.mpris.MediaPlayer2.<name> and answers the MPRIS Player interface as a
// real player does (PlaybackStatus and Volume properties, with
// PropertiesChanged signals; Play, Pause, PlayPause and Stop), so the app's
// media control is driven against the real protocol. It plays nothing.
type Player struct {
	conn  *dbus.Conn
	props *prop.Properties

	mu    sync.Mutex
	calls []string // method calls received, in order
}

const (
	mprisPath   = "/org/mpris/MediaPlayer2"
	mprisPlayer = "org.mpris.MediaPlayer2.Player"
)

// NewPlayer connects to the bus at addr (a session bus address) and takes
// the player name org.mpris.MediaPlayer2.<name>, in status ("Playing",
// "Paused" or "Stopped") at volume.
func NewPlayer(t testing.TB, addr, name, status string, volume float64) *Player {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &Player{conn: conn}
	set := func(s string) *dbus.Error {
		p.props.SetMust(mprisPlayer, "PlaybackStatus", s)
		return nil
	}
	p.props, err = prop.Export(conn, mprisPath, prop.Map{
		mprisPlayer: {
			"PlaybackStatus": {Value: status, Emit: prop.EmitTrue},
			"Volume":         {Value: volume, Writable: true, Emit: prop.EmitTrue},
			"CanPlay":        {Value: true, Emit: prop.EmitConst},
			"CanPause":       {Value: true, Emit: prop.EmitConst},
			"CanControl":     {Value: true, Emit: prop.EmitConst},
		},
		"org.mpris.MediaPlayer2": {
			"Identity": {Value: "WhisperKey test player " + name, Emit: prop.EmitConst},
		},
	})
	if err != nil {
		t.Fatalf("export MPRIS properties: %v", err)
	}
	methods := map[string]any{
		"Play":  func() *dbus.Error { p.record("Play"); return set("Playing") },
		"Pause": func() *dbus.Error { p.record("Pause"); return set("Paused") },
		"Stop":  func() *dbus.Error { p.record("Stop"); return set("Stopped") },
		"PlayPause": func() *dbus.Error {
			p.record("PlayPause")
			if p.Status() == "Playing" {
				return set("Paused")
			}
			return set("Playing")
		},
	}
	if err := conn.ExportMethodTable(methods, mprisPath, mprisPlayer); err != nil {
		t.Fatalf("export MPRIS methods: %v", err)
	}
	node := &introspect.Node{Name: mprisPath, Interfaces: []introspect.Interface{
		introspect.IntrospectData, prop.IntrospectData,
		{Name: mprisPlayer, Methods: []introspect.Method{{Name: "Play"}, {Name: "Pause"}, {Name: "Stop"}, {Name: "PlayPause"}},
			Properties: p.props.Introspection(mprisPlayer)},
	}}
	if err := conn.Export(introspect.NewIntrospectable(node), mprisPath, "org.freedesktop.DBus.Introspectable"); err != nil {
		t.Fatalf("export introspection: %v", err)
	}
	reply, err := conn.RequestName("org.mpris.MediaPlayer2."+name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.mpris.MediaPlayer2.%s: reply %v, %v", name, reply, err)
	}
	return p
}

func (p *Player) record(call string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
}

// Status is the player's PlaybackStatus now.
func (p *Player) Status() string {
	v, _ := p.props.Get(mprisPlayer, "PlaybackStatus")
	s, _ := v.Value().(string)
	return s
}

// Volume is the player's Volume now.
func (p *Player) Volume() float64 {
	v, _ := p.props.Get(mprisPlayer, "Volume")
	f, _ := v.Value().(float64)
	return f
}

// SetStatus changes the status as the user would, in the player itself
// (with the PropertiesChanged signal a real player sends).
func (p *Player) SetStatus(s string) { p.props.SetMust(mprisPlayer, "PlaybackStatus", s) }

// SetVolume changes the volume as the user would.
func (p *Player) SetVolume(v float64) { p.props.SetMust(mprisPlayer, "Volume", v) }

// Calls lists the MPRIS methods called on the player, in order.
func (p *Player) Calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}
