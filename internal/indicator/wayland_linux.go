//go:build linux

package indicator

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/sys/unix"

	"github.com/whisperkey/whisperkey/internal/wlwire"
)

// errNoLayerShell: the compositor offers no zwlr_layer_shell_v1 (GNOME).
var errNoLayerShell = errors.New("the compositor offers no layer-shell protocol")

// Requests, events and values of the protocols the layer window speaks.
const (
	compositorCreateSurface = 0
	compositorCreateRegion  = 1
	surfaceDestroy          = 0
	surfaceAttach           = 1
	surfaceDamage           = 2
	surfaceSetInputRegion   = 5
	surfaceCommit           = 6
	regionDestroy           = 0
	shmCreatePool           = 0
	poolCreateBuffer        = 0
	poolDestroy             = 1
	bufferRelease           = 0 // event
	formatARGB8888          = 0

	shellGetLayerSurface    = 0
	layerSetSize            = 0
	layerSetAnchor          = 1
	layerSetExclusiveZone   = 2
	layerSetMargin          = 3
	layerSetKeyboard        = 4
	layerAckConfigure       = 6
	layerDestroy            = 7
	layerConfigure          = 0 // event
	layerClosed             = 1 // event
	layerOverlay            = 3
	anchorBottom            = 2
	keyboardInteractiveNone = 0

	displayError   = 0 // event
	callbackDone   = 0 // event
	stride         = Width * 4
	frameBytes     = stride * Height
	layerNamespace = "whisperkey-indicator"
)

// layerWindow shows the indicator as a wlr-layer-shell surface: on the
// overlay layer, anchored bottom centre, with no keyboard interactivity
// and an empty input region, so it never takes the focus or a click. It
// draws into two shared-memory buffers, one on screen while the other is
// painted. A reader goroutine hands the compositor's events over; the
// Indicator serialises the calls, so no lock guards the connection.
type layerWindow struct {
	cfg    Config
	log    *slog.Logger
	socket string
	face   font.Face
	img    *image.RGBA

	conn                         *wlwire.Conn
	compositor, shm, shell, pool uint32
	mem                          []byte // the pool, mapped: two frames
	bufs                         [2]shmBuffer
	events                       chan wlwire.Event
	readErr                      chan error
	quit, readDone               chan struct{}
	broken                       error // the connection failed; the next show reconnects
	surface, layer               uint32
	configured                   bool
	syncID                       uint32
	synced                       bool
	shown                        frame // what the surface shows; zero while hidden
}

type shmBuffer struct {
	id   uint32
	off  int
	busy bool // the compositor holds it until release
}

// frame is what a repaint would change; an equal frame is not sent again.
type frame struct {
	state  State
	label  string
	live   bool
	filled int
}

func frameOf(v view) frame {
	f := frame{state: v.state, label: v.label(), live: v.live}
	if v.state == Recording {
		f.filled = levelWidth(v.level, contentRight-contentLeft)
	}
	return f
}

// openLayer connects to the compositor at socket; errNoLayerShell when it
// offers no layer shell.
func openLayer(cfg Config, log *slog.Logger, socket string) (*layerWindow, error) {
	face, err := newFace()
	if err != nil {
		return nil, err
	}
	w := &layerWindow{cfg: cfg, log: log, socket: socket, face: face, img: image.NewRGBA(image.Rect(0, 0, Width, Height))}
	if err := w.connect(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *layerWindow) connect() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := wlwire.Dial(ctx, w.socket)
	if err != nil {
		return err
	}
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	reg, globals, err := c.Registry()
	if err != nil {
		c.Close()
		return err
	}
	_ = c.SetDeadline(time.Time{})
	found := map[string]wlwire.Global{}
	for _, g := range globals {
		if _, ok := found[g.Interface]; !ok {
			found[g.Interface] = g
		}
	}
	for _, iface := range []string{"wl_compositor", "wl_shm"} {
		if _, ok := found[iface]; !ok {
			c.Close()
			return fmt.Errorf("the compositor offers no %s", iface)
		}
	}
	shell, ok := found["zwlr_layer_shell_v1"]
	if !ok {
		c.Close()
		return errNoLayerShell
	}
	w.conn = c
	w.compositor = c.Bind(reg, found["wl_compositor"], 1)
	w.shm = c.Bind(reg, found["wl_shm"], 1)
	w.shell = c.Bind(reg, shell, 1)
	if err := w.makePool(); err != nil {
		w.conn = nil
		c.Close()
		if w.mem != nil {
			_ = unix.Munmap(w.mem)
			w.mem = nil
		}
		return err
	}
	w.events = make(chan wlwire.Event, 64)
	w.readErr = make(chan error, 1)
	w.quit, w.readDone = make(chan struct{}), make(chan struct{})
	w.broken = nil
	go w.read(c, w.events, w.readErr, w.quit, w.readDone)
	if err := w.roundtrip(); err != nil {
		w.disconnect()
		return err
	}
	return nil
}

// makePool maps two frames of shared memory and makes a buffer of each.
func (w *layerWindow) makePool() error {
	fd, err := unix.MemfdCreate("whisperkey-indicator", unix.MFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("indicator buffer: %w", err)
	}
	defer unix.Close(fd) // the compositor keeps its own copy; the mapping outlives the fd
	size := 2 * frameBytes
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return fmt.Errorf("indicator buffer: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("indicator buffer: %w", err)
	}
	w.mem = mem
	w.pool = w.conn.NewID()
	w.conn.Msg(w.shm, shmCreatePool, wlwire.Uint(w.pool), wlwire.Int(int32(size)))
	if err := w.conn.Flush(fd); err != nil {
		return err
	}
	for i := range w.bufs {
		id := w.conn.NewID()
		w.bufs[i] = shmBuffer{id: id, off: i * frameBytes}
		w.conn.Msg(w.pool, poolCreateBuffer, wlwire.Uint(id), wlwire.Int(int32(i*frameBytes), Width, Height, stride), wlwire.Uint(formatARGB8888))
	}
	return nil
}

// read hands the compositor's events to the owner until the connection ends.
func (w *layerWindow) read(c *wlwire.Conn, events chan<- wlwire.Event, readErr chan<- error, quit <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		e, err := c.Read()
		if err != nil {
			readErr <- err
			return
		}
		select {
		case events <- e:
		case <-quit:
			return
		}
	}
}

// handle applies one event.
func (w *layerWindow) handle(e wlwire.Event) {
	switch {
	case e.Obj == wlwire.Display && e.Op == displayError:
		w.broken = wlwire.ProtocolError(e.Body)
		w.log.Warn("the compositor closed the indicator's connection", "err", w.broken)
	case e.Obj == w.syncID && e.Op == callbackDone:
		w.synced = true
	case e.Obj == w.layer && w.layer != 0 && e.Op == layerConfigure:
		serial := wlwire.Args(e.Body).Uint()
		w.conn.Msg(w.layer, layerAckConfigure, wlwire.Uint(serial))
		w.configured = true
		w.shown = frame{} // a configure asks for a new frame
	case e.Obj == w.layer && w.layer != 0 && e.Op == layerClosed:
		// The compositor took the surface away (its output went); the
		// next show makes a new one.
		w.destroySurface()
	default:
		for i := range w.bufs {
			if e.Obj == w.bufs[i].id && e.Op == bufferRelease {
				w.bufs[i].busy = false
			}
		}
	}
}

// pump handles events until done says so, the connection fails or timeout passes.
func (w *layerWindow) pump(timeout time.Duration, done func() bool) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for !done() && w.broken == nil {
		select {
		case e := <-w.events:
			w.handle(e)
		case err := <-w.readErr:
			w.broken = err
		case <-t.C:
			return errors.New("the compositor did not answer in time")
		}
	}
	return w.broken
}

// drain handles the events that arrived since the last call.
func (w *layerWindow) drain() {
	for w.broken == nil {
		select {
		case e := <-w.events:
			w.handle(e)
		case err := <-w.readErr:
			w.broken = err
		default:
			return
		}
	}
}

// roundtrip sends what is buffered and waits until the compositor has handled it.
func (w *layerWindow) roundtrip() error {
	w.syncID, w.synced = w.conn.NewID(), false
	w.conn.Msg(wlwire.Display, 0, wlwire.Uint(w.syncID))
	if err := w.conn.Flush(-1); err != nil {
		w.broken = err
		return err
	}
	return w.pump(2*time.Second, func() bool { return w.synced })
}

// ready reconnects after a failed connection (the compositor restarted).
func (w *layerWindow) ready() bool {
	w.drain()
	if w.broken == nil {
		return true
	}
	w.log.Info("reconnecting the indicator to the compositor", "err", w.broken)
	w.disconnect()
	if err := w.connect(); err != nil {
		w.log.Warn("the indicator cannot reach the compositor", "err", err)
		w.broken = err
		return false
	}
	return true
}

// mapSurface makes the layer surface and waits for its first configure.
func (w *layerWindow) mapSurface() error {
	c := w.conn
	w.surface = c.NewID()
	c.Msg(w.compositor, compositorCreateSurface, wlwire.Uint(w.surface))
	region := c.NewID() // empty: every click goes to the window below
	c.Msg(w.compositor, compositorCreateRegion, wlwire.Uint(region))
	c.Msg(w.surface, surfaceSetInputRegion, wlwire.Uint(region))
	c.Msg(region, regionDestroy)
	w.layer = c.NewID()
	// No output: the compositor picks one, the focused one on sway.
	c.Msg(w.shell, shellGetLayerSurface, wlwire.Uint(w.layer, w.surface, 0, layerOverlay), wlwire.String(layerNamespace))
	c.Msg(w.layer, layerSetSize, wlwire.Uint(Width, Height))
	c.Msg(w.layer, layerSetAnchor, wlwire.Uint(anchorBottom))
	c.Msg(w.layer, layerSetMargin, wlwire.Int(0, 0, int32(w.cfg.Margin), 0))
	c.Msg(w.layer, layerSetExclusiveZone, wlwire.Int(0))
	c.Msg(w.layer, layerSetKeyboard, wlwire.Uint(keyboardInteractiveNone))
	c.Msg(w.surface, surfaceCommit)
	w.configured = false
	if err := c.Flush(-1); err != nil {
		w.broken = err
		return err
	}
	return w.pump(2*time.Second, func() bool { return w.configured })
}

// paint draws v into a free buffer and shows it, unless the surface shows that frame already.
func (w *layerWindow) paint(v view) error {
	f := frameOf(v)
	if f == w.shown {
		return nil
	}
	free := func() int {
		for i := range w.bufs {
			if !w.bufs[i].busy {
				return i
			}
		}
		return -1
	}
	if free() < 0 {
		// Both are on screen or on their way: wait a frame for one back.
		if err := w.pump(100*time.Millisecond, func() bool { return free() >= 0 }); err != nil {
			return fmt.Errorf("no indicator buffer free: %w", err)
		}
	}
	b := &w.bufs[free()]
	render(w.img, w.face, v)
	toARGB(w.mem[b.off:b.off+frameBytes], w.img)
	b.busy = true
	w.conn.Msg(w.surface, surfaceAttach, wlwire.Uint(b.id), wlwire.Int(0, 0))
	w.conn.Msg(w.surface, surfaceDamage, wlwire.Int(0, 0, Width, Height))
	w.conn.Msg(w.surface, surfaceCommit)
	if err := w.roundtrip(); err != nil {
		return err
	}
	w.shown = f
	return nil
}

// toARGB copies img into dst as the compositor reads ARGB8888: little-endian, so B, G, R, A in memory.
func toARGB(dst []byte, img *image.RGBA) {
	for y := range Height {
		row := img.Pix[y*img.Stride : y*img.Stride+stride]
		out := dst[y*stride : (y+1)*stride]
		for x := 0; x < stride; x += 4 {
			out[x], out[x+1], out[x+2], out[x+3] = row[x+2], row[x+1], row[x], row[x+3]
		}
	}
}

func (w *layerWindow) show(v view, _ bool) {
	if !w.ready() {
		return
	}
	if w.surface == 0 {
		if err := w.mapSurface(); err != nil {
			w.log.Warn("cannot show the indicator", "err", err)
			return
		}
	}
	if err := w.paint(v); err != nil {
		w.log.Warn("cannot draw the indicator", "err", err)
	}
}

func (w *layerWindow) draw(v view) {
	if w.surface == 0 || !w.ready() {
		return
	}
	if err := w.paint(v); err != nil {
		w.log.Warn("cannot draw the indicator", "err", err)
	}
}

func (w *layerWindow) hide() {
	if w.surface == 0 || !w.ready() {
		return
	}
	w.destroySurface()
	if err := w.roundtrip(); err != nil {
		w.log.Warn("cannot hide the indicator", "err", err)
	}
}

// destroySurface unmaps the indicator: the layer surface and its surface go.
func (w *layerWindow) destroySurface() {
	if w.surface == 0 {
		return
	}
	w.conn.Msg(w.layer, layerDestroy)
	w.conn.Msg(w.surface, surfaceDestroy)
	w.surface, w.layer, w.configured, w.shown = 0, 0, false, frame{}
	for i := range w.bufs {
		w.bufs[i].busy = false // a destroyed surface holds no buffer
	}
}

// bounds: a Wayland client does not learn where the compositor put it.
func (w *layerWindow) bounds() Rect { return Rect{W: Width, H: Height} }

// disconnect ends the connection and its reader, and unmaps the pool.
func (w *layerWindow) disconnect() {
	if w.conn == nil {
		return
	}
	close(w.quit)
	_ = w.conn.Close()
	<-w.readDone
	if w.mem != nil {
		_ = unix.Munmap(w.mem)
		w.mem = nil
	}
	w.conn = nil
	w.surface, w.layer, w.configured, w.shown = 0, 0, false, frame{}
}

func (w *layerWindow) close() error {
	if w.conn != nil && w.broken == nil {
		w.destroySurface()
		for i := range w.bufs {
			w.conn.Msg(w.bufs[i].id, 0) // wl_buffer.destroy
		}
		w.conn.Msg(w.pool, poolDestroy)
		_ = w.conn.Flush(-1)
	}
	w.disconnect()
	return nil
}
