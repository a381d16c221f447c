package wlwire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Display is wl_display, object 1 on every connection.
const Display = 1

// Conn is one connection to a compositor. It is not safe for concurrent
// use, except that Read may run on one goroutine while another writes.
type Conn struct {
	c    *net.UnixConn
	out  []byte
	next uint32 // the last object id handed out
}

// Dial connects to the compositor's socket.
func Dial(ctx context.Context, socket string) (*Conn, error) {
	if socket == "" {
		return nil, errors.New("no Wayland display (WAYLAND_DISPLAY is not set)")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("connect to the compositor at %s: %w", socket, err)
	}
	return &Conn{c: c.(*net.UnixConn), next: Display}, nil
}

// Close closes the connection; a Read waiting on it returns.
func (c *Conn) Close() error { return c.c.Close() }

// SetDeadline limits the connection's reads and writes.
func (c *Conn) SetDeadline(t time.Time) error { return c.c.SetDeadline(t) }

// NewID is a fresh object id for a request's new_id argument.
func (c *Conn) NewID() uint32 {
	c.next++
	return c.next
}

// Msg buffers the request opcode op of object obj; args are its encoded
// arguments, in order (Uint, Int, String). Flush sends it.
func (c *Conn) Msg(obj uint32, op uint16, args ...[]byte) {
	n := 8
	for _, a := range args {
		n += len(a)
	}
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:], obj)
	binary.LittleEndian.PutUint16(h[4:], op)
	binary.LittleEndian.PutUint16(h[6:], uint16(n))
	c.out = append(c.out, h[:]...)
	for _, a := range args {
		c.out = append(c.out, a...)
	}
}

// Flush sends the buffered requests, with fd (when >= 0) as ancillary data:
// the request among them that takes an fd argument gets it.
func (c *Conn) Flush(fd int) error {
	var oob []byte
	if fd >= 0 {
		var err error
		if oob, err = rights(fd); err != nil {
			return err
		}
	}
	_, _, err := c.c.WriteMsgUnix(c.out, oob, nil)
	c.out = c.out[:0]
	if err != nil {
		return fmt.Errorf("write to the compositor: %w", err)
	}
	return nil
}

// Event is one message from the compositor.
type Event struct {
	Obj  uint32
	Op   uint16
	Body []byte
}

// Read waits for the next event.
func (c *Conn) Read() (Event, error) {
	var h [8]byte
	if _, err := io.ReadFull(c.c, h[:]); err != nil {
		return Event{}, fmt.Errorf("read from the compositor: %w", err)
	}
	size := int(binary.LittleEndian.Uint16(h[6:]))
	if size < 8 {
		return Event{}, fmt.Errorf("read from the compositor: bad message size %d", size)
	}
	body := make([]byte, size-8)
	if _, err := io.ReadFull(c.c, body); err != nil {
		return Event{}, fmt.Errorf("read from the compositor: %w", err)
	}
	return Event{Obj: binary.LittleEndian.Uint32(h[:]), Op: binary.LittleEndian.Uint16(h[4:]), Body: body}, nil
}

// Global is one interface the compositor offers (wl_registry.global).
type Global struct {
	Name      uint32
	Interface string
	Version   uint32
}

// Registry asks for the compositor's globals: wl_display.get_registry,
// then a wl_display.sync whose callback marks the end of the list. It
// returns the registry's id, for Bind.
func (c *Conn) Registry() (registry uint32, globals []Global, err error) {
	registry, done := c.NewID(), c.NewID()
	c.Msg(Display, 1, Uint(registry))
	c.Msg(Display, 0, Uint(done))
	if err := c.Flush(-1); err != nil {
		return 0, nil, err
	}
	for {
		e, err := c.Read()
		if err != nil {
			return 0, nil, err
		}
		switch {
		case e.Obj == done && e.Op == 0: // wl_callback.done
			return registry, globals, nil
		case e.Obj == Display && e.Op == 0:
			return 0, nil, ProtocolError(e.Body)
		case e.Obj == registry && e.Op == 0: // wl_registry.global(name, interface, version)
			a := Args(e.Body)
			g := Global{Name: a.Uint(), Interface: a.String(), Version: a.Uint()}
			if a.Err() == nil {
				globals = append(globals, g)
			}
		}
	}
}

// Bind buffers wl_registry.bind of g at version and returns the new object's id.
func (c *Conn) Bind(registry uint32, g Global, version uint32) uint32 {
	id := c.NewID()
	c.Msg(registry, 0, Uint(g.Name), String(g.Interface), Uint(version, id))
	return id
}

// ProtocolError reads the body of wl_display.error.
func ProtocolError(body []byte) error {
	a := Args(body)
	obj, code, msg := a.Uint(), a.Uint(), a.String()
	return fmt.Errorf("the compositor reported a protocol error on object %d (code %d): %s", obj, code, msg)
}

// Uint encodes uint arguments (also object ids and new_ids).
func Uint(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// Int encodes int arguments.
func Int(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// String encodes a string argument: its length with the NUL, the bytes,
// padded to 4.
func String(s string) []byte {
	n := len(s) + 1
	b := make([]byte, 4+(n+3)/4*4)
	binary.LittleEndian.PutUint32(b, uint32(n))
	copy(b[4:], s)
	return b
}

// ArgReader decodes an event's arguments in order; a short or malformed
// body leaves zero values and Err set.
type ArgReader struct {
	b   []byte
	err error
}

// Args reads the arguments of body.
func Args(body []byte) *ArgReader { return &ArgReader{b: body} }

// Uint reads a uint (or object id).
func (a *ArgReader) Uint() uint32 {
	if len(a.b) < 4 {
		a.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(a.b)
	a.b = a.b[4:]
	return v
}

// String reads a string.
func (a *ArgReader) String() string {
	if len(a.b) < 4 {
		a.fail()
		return ""
	}
	n := int(binary.LittleEndian.Uint32(a.b))
	if n == 0 { // a null string
		a.b = a.b[4:]
		return ""
	}
	padded := (n + 3) / 4 * 4
	if n < 1 || 4+padded > len(a.b) {
		a.fail()
		return ""
	}
	s := string(a.b[4 : 4+n-1])
	a.b = a.b[4+padded:]
	return s
}

// Err says whether a read ran past the body.
func (a *ArgReader) Err() error { return a.err }

func (a *ArgReader) fail() {
	a.b = nil
	if a.err == nil {
		a.err = errors.New("short Wayland message")
	}
}
