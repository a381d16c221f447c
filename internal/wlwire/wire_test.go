//go:build unix

package wlwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestEncodeDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []byte
	}{
		{"empty", "", []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{"three bytes fill one word", "abc", []byte{4, 0, 0, 0, 'a', 'b', 'c', 0}},
		{"four bytes pad to two words", "wl_s", []byte{5, 0, 0, 0, 'w', 'l', '_', 's', 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := String(tt.in)
			if !bytes.Equal(b, tt.want) {
				t.Fatalf("String(%q) = %v, want %v", tt.in, b, tt.want)
			}
			a := Args(append(append(Uint(7), b...), Int(-3)...))
			if n, s, i := a.Uint(), a.String(), int32(a.Uint()); n != 7 || s != tt.in || i != -3 || a.Err() != nil {
				t.Errorf("read back %d %q %d (%v)", n, s, i, a.Err())
			}
		})
	}
	a := Args(Uint(1))
	if a.Uint(); a.String() != "" || a.Err() == nil {
		t.Error("reading past the body: no error")
	}
	a = Args([]byte{9, 0, 0, 0, 'x'})
	if _ = a.String(); a.Err() == nil {
		t.Error("a string longer than the body: no error")
	}
	if a := Args(Uint(0)); a.String() != "" || a.Err() != nil {
		t.Errorf("a null string: %v", a.Err())
	}
}

// fakeCompositor answers get_registry and sync with globals, and records
// the requests that follow and the fd that came with them.
func fakeCompositor(t *testing.T, globals []Global) (socket string, got <-chan []byte, gotFD <-chan int) {
	t.Helper()
	socket = filepath.Join(t.TempDir(), "wayland-0")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	reqs, fds := make(chan []byte, 1), make(chan int, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			return
		}
		defer c.Close()
		// get_registry(2) and sync(3): 2 × 12 bytes.
		buf := make([]byte, 24)
		if _, err := c.Read(buf); err != nil {
			return
		}
		reg := binary.LittleEndian.Uint32(buf[8:])
		done := binary.LittleEndian.Uint32(buf[20:])
		w := &Conn{c: c}
		for _, g := range globals {
			w.Msg(reg, 0, Uint(g.Name), String(g.Interface), Uint(g.Version))
		}
		w.Msg(done, 0, Uint(1))
		if err := w.Flush(-1); err != nil {
			return
		}
		b, oob := make([]byte, 256), make([]byte, 64)
		n, oobn, _, _, err := c.ReadMsgUnix(b, oob)
		if err != nil {
			return
		}
		fd := -1
		if msgs, _ := unix.ParseSocketControlMessage(oob[:oobn]); len(msgs) == 1 {
			if got, _ := unix.ParseUnixRights(&msgs[0]); len(got) == 1 {
				fd = got[0]
			}
		}
		reqs <- b[:n]
		fds <- fd
	}()
	return socket, reqs, fds
}

// The registry's globals come back in order, a bind names the interface
// and version, and an fd travels beside its request.
func TestRegistryAndBind(t *testing.T) {
	want := []Global{{1, "wl_compositor", 6}, {2, "wl_shm", 1}, {7, "zwlr_layer_shell_v1", 4}}
	socket, reqs, fds := fakeCompositor(t, want)
	c, err := Dial(context.Background(), socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg, globals, err := c.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if len(globals) != len(want) {
		t.Fatalf("globals %v, want %v", globals, want)
	}
	for i := range want {
		if globals[i] != want[i] {
			t.Errorf("global %d = %+v, want %+v", i, globals[i], want[i])
		}
	}
	id := c.Bind(reg, globals[2], 1)
	if id != 4 {
		t.Errorf("bound id %d, want 4 (after the registry 2 and the callback 3)", id)
	}
	f, err := os.CreateTemp(t.TempDir(), "pool")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := c.Flush(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	b := <-reqs
	wantReq := append(append(Uint(reg, 0), Uint(globals[2].Name)...), append(String("zwlr_layer_shell_v1"), Uint(1, 4)...)...)
	binary.LittleEndian.PutUint32(wantReq[4:], uint32(len(wantReq))<<16) // opcode 0, size
	if !bytes.Equal(b, wantReq) {
		t.Errorf("bind request\n%v, want\n%v", b, wantReq)
	}
	if fd := <-fds; fd < 0 {
		t.Error("no fd came with the request")
	} else {
		unix.Close(fd)
	}
}

func TestDialWithoutDisplay(t *testing.T) {
	if _, err := Dial(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "WAYLAND_DISPLAY") {
		t.Errorf("Dial without a display: %v", err)
	}
}
