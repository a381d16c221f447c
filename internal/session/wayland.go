package session

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"time"
)

// SocketPath is the Wayland display socket: WAYLAND_DISPLAY itself when it
// is absolute, else under XDG_RUNTIME_DIR; "" when there is none.
func SocketPath(waylandDisplay, runtimeDir string) string {
	switch {
	case waylandDisplay == "":
		return ""
	case filepath.IsAbs(waylandDisplay):
		return waylandDisplay
	case runtimeDir == "":
		return ""
	}
	return filepath.Join(runtimeDir, waylandDisplay)
}

// Globals asks the compositor at socket for the interfaces it offers: the
// core protocol's wl_display.get_registry and a wl_display.sync, whose
// callback marks the end of the registry's global events.
func Globals(ctx context.Context, socket string) ([]string, error) {
	if socket == "" {
		return nil, errors.New("no Wayland display (WAYLAND_DISPLAY is not set)")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("connect to the compositor at %s: %w", socket, err)
	}
	defer c.Close()
	dl := time.Now().Add(2 * time.Second)
	if t, ok := ctx.Deadline(); ok && t.Before(dl) {
		dl = t
	}
	_ = c.SetDeadline(dl)
	const (
		display  = 1 // wl_display, always object 1
		registry = 2
		callback = 3
	)
	// wl_display.get_registry (opcode 1) then wl_display.sync (opcode 0).
	req := append(message(display, 1, registry), message(display, 0, callback)...)
	if _, err := c.Write(req); err != nil {
		return nil, fmt.Errorf("ask the compositor for its globals: %w", err)
	}
	var names []string
	hdr := make([]byte, 8)
	for {
		if _, err := io.ReadFull(c, hdr); err != nil {
			return nil, fmt.Errorf("read the compositor's globals: %w", err)
		}
		obj := binary.LittleEndian.Uint32(hdr)
		opcode := binary.LittleEndian.Uint16(hdr[4:])
		size := int(binary.LittleEndian.Uint16(hdr[6:]))
		if size < 8 {
			return nil, fmt.Errorf("read the compositor's globals: bad message size %d", size)
		}
		body := make([]byte, size-8)
		if _, err := io.ReadFull(c, body); err != nil {
			return nil, fmt.Errorf("read the compositor's globals: %w", err)
		}
		switch {
		case obj == callback && opcode == 0: // wl_callback.done
			return names, nil
		case obj == display && opcode == 0: // wl_display.error
			return nil, errors.New("the compositor answered with a protocol error")
		case obj == registry && opcode == 0: // wl_registry.global(name, interface, version)
			if name, ok := globalInterface(body); ok {
				names = append(names, name)
			}
		}
	}
}

// message is a request with one new_id argument.
func message(obj uint32, opcode uint16, newID uint32) []byte {
	b := make([]byte, 12)
	binary.LittleEndian.PutUint32(b, obj)
	binary.LittleEndian.PutUint16(b[4:], opcode)
	binary.LittleEndian.PutUint16(b[6:], 12)
	binary.LittleEndian.PutUint32(b[8:], newID)
	return b
}

// globalInterface reads the interface string of a wl_registry.global body:
// a uint name, then a length-prefixed, NUL-terminated, padded string.
func globalInterface(body []byte) (string, bool) {
	if len(body) < 8 {
		return "", false
	}
	n := int(binary.LittleEndian.Uint32(body[4:]))
	if n < 1 || 8+n > len(body) {
		return "", false
	}
	return string(body[8 : 8+n-1]), true
}
