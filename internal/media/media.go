package media

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// The MPRIS names (https://specifications.freedesktop.org/mpris-spec/latest/).
const (
	mprisPrefix = "org.mpris.MediaPlayer2."
	mprisPath   = "/org/mpris/MediaPlayer2"
	mprisPlayer = "org.mpris.MediaPlayer2.Player"
	propsIface  = "org.freedesktop.DBus.Properties"
)

const (
	// LowerFactor is the share of its volume a player keeps in lower mode.
	LowerFactor = 0.2
	// callTimeout bounds each call to one player: a hung player must not
	// hold up the others, nor the next recording.
	callTimeout = 500 * time.Millisecond
	// volumeSlack: a volume within this of what we set is still ours
	// (players round it).
	volumeSlack = 0.01
)

// Controller pauses or lowers the playing media while a recording runs. The
// desktop says when recording starts and ends (Recording); Run does the work
// in the background, in order, so a slow player never delays the microphone.
// On Linux it reaches MPRIS players on the session bus; on Windows the
// programs' audio sessions (sys; sessions.go).
type Controller struct {
	log     *slog.Logger
	connect func() (*dbus.Conn, error)
	sys     sessionSystem // nil: MPRIS

	mu     sync.Mutex // guards mode and want
	mode   choice.MediaMode
	want   bool          // recording now
	notify chan struct{} // a change of want (buffer 1)

	// Owned by Run.
	conn    *dbus.Conn
	sigs    chan *dbus.Signal
	held    []player
	heldBy  choice.MediaMode // the mode the held players were changed in
	active  bool             // between a start handled and its end
	warned  bool             // the bus was unreachable, and the log said so
	nothing bool             // no player was found last time (logged once)
	// sessions are the audio sessions changed at the start (sys).
	sessions []heldSession
}

// player is one player changed at the start of a recording.
type player struct {
	name, owner string  // well-known and unique bus names
	volume      float64 // lower mode: its volume before
	set         float64 // lower mode: the volume we set
	touched     bool    // the user changed it since: leave it as they set it
}

// New returns a controller in mode (choice.MediaOff does nothing). It
// connects to the session bus at the first recording.
func New(mode choice.MediaMode, log *slog.Logger) *Controller {
	c := newController(mode, log, connect)
	c.sys = osSessions()
	return c
}

func newController(mode choice.MediaMode, log *slog.Logger, connect func() (*dbus.Conn, error)) *Controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{log: log.With("pkg", "media"), connect: connect, mode: mode, notify: make(chan struct{}, 1)}
}

// SetMode changes the mode from the next recording on; media changed at the
// start of the one in progress is put back as it was changed. A nil
// Controller (none made yet) ignores it, as it does Recording.
func (c *Controller) SetMode(mode choice.MediaMode) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mode = mode
}

// Recording tells whether a recording runs now. It never blocks.
func (c *Controller) Recording(on bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.want = on
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default: // a wake-up is pending; it reads the latest want
	}
}

// Run changes and restores media as Recording asks until ctx ends; then it
// puts back what it changed and closes its bus connection.
func (c *Controller) Run(ctx context.Context) error {
	if c.sys != nil {
		leave, err := c.sys.Enter()
		if err != nil {
			c.log.Warn("media control unavailable", "err", err)
			<-ctx.Done()
			return ctx.Err()
		}
		defer leave() // after the deferred end below
	}
	defer func() {
		if c.active {
			c.end(context.WithoutCancel(ctx))
		}
		if c.conn != nil {
			_ = c.conn.Close()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.notify:
		}
		c.mu.Lock()
		want, mode := c.want, c.mode
		c.mu.Unlock()
		switch {
		case want && !c.active:
			c.begin(ctx, mode)
		case !want && c.active:
			c.end(ctx)
		}
	}
}

// begin pauses (or lowers) the players that are playing now.
func (c *Controller) begin(ctx context.Context, mode choice.MediaMode) {
	if c.sys != nil {
		c.beginSessions(mode)
		return
	}
	c.active, c.heldBy, c.held = true, mode, nil
	if mode == choice.MediaOff || !c.ensureConn() {
		return
	}
	names, err := c.players(ctx)
	if err != nil {
		c.log.Warn("cannot list media players", "err", err)
		return
	}
	for _, name := range names {
		p, ok := c.change(ctx, mode, name)
		if ok {
			c.held = append(c.held, p)
		}
	}
	// What happened before, our own change included, is no sign of the
	// user's: one more round trip to each player brings in its signals up to
	// now (the bus keeps a sender's messages in order), and they are dropped.
	var status string
	for _, p := range c.held {
		_ = c.get(ctx, p.name, "PlaybackStatus", &status)
	}
	c.drain()
	if len(c.held) > 0 || !c.nothing {
		c.nothing = len(c.held) == 0
		c.log.Info("media while recording", "mode", string(mode), "players", len(names), "changed", len(c.held))
	}
}

// change pauses or lowers one player if it is playing.
func (c *Controller) change(ctx context.Context, mode choice.MediaMode, name string) (player, bool) {
	p := player{name: name}
	if err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetNameOwner", name).Store(&p.owner); err != nil {
		return p, false // gone meanwhile
	}
	var status string
	if err := c.get(ctx, name, "PlaybackStatus", &status); err != nil || status != "Playing" {
		return p, false
	}
	switch mode {
	case choice.MediaPause:
		var canPause bool
		if err := c.get(ctx, name, "CanPause", &canPause); err == nil && !canPause {
			return p, false // a live stream, say: it cannot pause, leave it
		}
		if err := c.call(ctx, name, mprisPath, mprisPlayer+".Pause").Err; err != nil {
			c.log.Warn("cannot pause media player", "player", name, "err", err)
			return p, false
		}
	case choice.MediaLower:
		if err := c.get(ctx, name, "Volume", &p.volume); err != nil {
			return p, false // it has no volume to lower
		}
		p.set = p.volume * LowerFactor
		if err := c.call(ctx, name, mprisPath, propsIface+".Set", mprisPlayer, "Volume", dbus.MakeVariant(p.set)).Err; err != nil {
			c.log.Warn("cannot lower media player", "player", name, "err", err)
			return p, false
		}
	default:
		return p, false
	}
	return p, true
}

// end resumes (or turns back up) the players begin changed, except those the
// user changed meanwhile.
func (c *Controller) end(ctx context.Context) {
	if c.sys != nil {
		c.endSessions(ctx)
		return
	}
	c.active = false
	held := c.held
	c.held = nil
	if len(held) == 0 {
		return
	}
	// Each player's state is read first: the bus delivers a player's signals
	// before its reply, so once every reply is in, so is every change the
	// user made before it.
	status := make([]string, len(held))
	volume := make([]float64, len(held))
	for i, p := range held {
		if c.get(ctx, p.name, "PlaybackStatus", &status[i]) != nil {
			held[i].touched = true // gone
			continue
		}
		if c.heldBy == choice.MediaLower && c.get(ctx, p.name, "Volume", &volume[i]) != nil {
			held[i].touched = true
		}
	}
	c.drainInto(held)
	restored := 0
	for i, p := range held {
		if p.touched {
			continue
		}
		switch c.heldBy {
		case choice.MediaPause:
			if status[i] != "Paused" {
				continue
			}
			if err := c.call(ctx, p.name, mprisPath, mprisPlayer+".Play").Err; err != nil {
				c.log.Warn("cannot resume media player", "player", p.name, "err", err)
				continue
			}
		case choice.MediaLower:
			if math.Abs(volume[i]-p.set) > volumeSlack {
				continue
			}
			if err := c.call(ctx, p.name, mprisPath, propsIface+".Set", mprisPlayer, "Volume", dbus.MakeVariant(p.volume)).Err; err != nil {
				c.log.Warn("cannot restore media player volume", "player", p.name, "err", err)
				continue
			}
		}
		restored++
	}
	c.log.Info("media restored", "mode", string(c.heldBy), "changed", len(held), "restored", restored)
}

// ensureConn connects to the session bus once and subscribes to the
// players' property changes, which say what the user did meanwhile.
func (c *Controller) ensureConn() bool {
	if c.conn != nil {
		return true
	}
	conn, err := c.connect()
	if err == nil {
		err = conn.AddMatchSignal(dbus.WithMatchInterface(propsIface), dbus.WithMatchMember("PropertiesChanged"),
			dbus.WithMatchObjectPath(mprisPath))
		if err != nil {
			_ = conn.Close()
		}
	}
	if err != nil {
		if !c.warned {
			c.warned = true
			c.log.Warn("media control unavailable: no session bus", "err", err)
		}
		return false
	}
	c.conn, c.sigs = conn, make(chan *dbus.Signal, 64)
	conn.Signal(c.sigs)
	return true
}

// players lists the MPRIS players on the bus.
func (c *Controller) players(ctx context.Context) ([]string, error) {
	var names []string
	if err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames").Store(&names); err != nil {
		return nil, fmt.Errorf("list bus names: %w", err)
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, mprisPrefix) {
			out = append(out, n)
		}
	}
	return out, nil
}

func (c *Controller) call(ctx context.Context, dest string, path dbus.ObjectPath, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.conn.Object(dest, path).CallWithContext(ctx, method, 0, args...)
}

// get reads one Player property into dst.
func (c *Controller) get(ctx context.Context, name, prop string, dst any) error {
	var v dbus.Variant
	if err := c.call(ctx, name, mprisPath, propsIface+".Get", mprisPlayer, prop).Store(&v); err != nil {
		return err
	}
	return v.Store(dst)
}

// drain discards the property changes received so far.
func (c *Controller) drain() { c.drainInto(nil) }

// drainInto marks the held players whose playback or volume changed to
// something other than what we set: the user's own doing.
func (c *Controller) drainInto(held []player) {
	for {
		select {
		case s := <-c.sigs:
			if s == nil || len(s.Body) < 2 {
				continue
			}
			if iface, _ := s.Body[0].(string); iface != mprisPlayer {
				continue
			}
			changed, _ := s.Body[1].(map[string]dbus.Variant)
			for i := range held {
				if held[i].owner == s.Sender && userChanged(c.heldBy, held[i], changed) {
					held[i].touched = true
				}
			}
		default:
			return
		}
	}
}

// userChanged reports whether a PropertiesChanged of p is not the change we
// made: a status other than Paused after our pause, a volume other than ours.
func userChanged(mode choice.MediaMode, p player, changed map[string]dbus.Variant) bool {
	switch mode {
	case choice.MediaPause:
		if v, ok := changed["PlaybackStatus"]; ok {
			s, _ := v.Value().(string)
			return s != "Paused"
		}
	case choice.MediaLower:
		if v, ok := changed["Volume"]; ok {
			f, _ := v.Value().(float64)
			return math.Abs(f-p.set) > volumeSlack
		}
	}
	return false
}
