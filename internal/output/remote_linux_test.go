package output

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/portal"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// gnomeRegistry answers a client's registry with GNOME's lack: a seat and
// no virtual-keyboard or data-control protocol. It serves the one
// exchange session.Globals makes (get_registry, sync) per connection.
func gnomeRegistry(t *testing.T) (runtimeDir, display string) {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "wayland-gnome"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 24) // get_registry and sync, 12 bytes each
			if _, err := c.Read(buf); err == nil {
				var out []byte
				for i, iface := range []string{"wl_compositor", "wl_seat"} {
					out = append(out, global(uint32(i+1), iface)...)
				}
				done := make([]byte, 12) // wl_callback(3).done(serial)
				binary.LittleEndian.PutUint32(done, 3)
				binary.LittleEndian.PutUint32(done[4:], 12<<16)
				_, _ = c.Write(append(out, done...))
			}
			c.Close()
		}
	}()
	return dir, "wayland-gnome"
}

// global is wl_registry(2).global(name, interface, version 1).
func global(name uint32, iface string) []byte {
	n := len(iface) + 1
	padded := (n + 3) &^ 3
	size := 8 + 4 + 4 + padded + 4
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b, 2)
	binary.LittleEndian.PutUint32(b[4:], uint32(size)<<16)
	binary.LittleEndian.PutUint32(b[8:], name)
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	copy(b[16:], iface)
	binary.LittleEndian.PutUint32(b[16+padded:], 1)
	return b
}

// On a compositor without a virtual keyboard the paste keystroke takes the
// RemoteDesktop portal when the session bus offers it: Ctrl+V arrives
// there as keysyms, and until the user answers the desktop's dialog, or
// after they decline, the paste says why instead.
func TestWaylandRemoteDesktopRoute(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answer  uint32 // the dialog: 0 allowed, 1 declined
		portal  bool
		wantErr string
	}{
		{name: "allowed", portal: true},
		{name: "declined", portal: true, answer: 1, wantErr: "declined"},
		{name: "no portal", wantErr: "no virtual-keyboard protocol"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := testenv.PrivateBus(t)
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
			var p *testenv.Portal
			if tt.portal {
				p = testenv.NewPortal(t, addr)
				p.AnswerStart(tt.answer)
			}
			dir, display := gnomeRegistry(t)
			env := map[string]string{"WAYLAND_DISPLAY": display, "XDG_RUNTIME_DIR": dir}
			w := newWayland(testlog.New(t, 0), func(k string) string { return env[k] }, filepath.Join(t.TempDir(), "token"))
			defer w.close()
			if (w.remote != nil) != tt.portal {
				t.Fatalf("RemoteDesktop route taken: %v, want %v", w.remote != nil, tt.portal)
			}
			err := w.keysErr()
			for end := time.Now().Add(10 * time.Second); errors.Is(err, portal.ErrKeyboardPending) && time.Now().Before(end); err = w.keysErr() {
				time.Sleep(10 * time.Millisecond)
			}
			names := map[uint32]string{}
			for ks, n := range wlKeysyms {
				names[uint32(ks)] = n
			}
			b := &osBackend{pk: pasteKeys{ctrl: xkControlL, v: xkV, enter: xkReturn}}
			sendErr := w.send(b.pasteSeq(pasteCtrlV), names)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || sendErr == nil {
					t.Fatalf("keysErr %v, send %v; want both to say %q", err, sendErr, tt.wantErr)
				}
				return
			}
			if err != nil || sendErr != nil {
				t.Fatalf("keysErr %v, send %v", err, sendErr)
			}
			// paste: type sends each character as its keysym, through the same session.
			if err := w.typeText(context.Background(), "Hé π"); err != nil {
				t.Fatalf("typeText: %v", err)
			}
			want := []testenv.PortalKey{{Keysym: xkControlL, Pressed: true}, {Keysym: xkV, Pressed: true}, {Keysym: xkV}, {Keysym: xkControlL},
				{Keysym: 'H', Pressed: true}, {Keysym: 'H'}, {Keysym: 0xe9, Pressed: true}, {Keysym: 0xe9},
				{Keysym: ' ', Pressed: true}, {Keysym: ' '}, {Keysym: 0x010003c0, Pressed: true}, {Keysym: 0x010003c0}}
			got := p.Keys()
			if len(got) != len(want) {
				t.Fatalf("the portal got %+v, want %+v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("key %d: %+v, want %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// Each character becomes the keysym the desktop looks up on the user's
// layout: Latin-1 as itself, the rest of Unicode by code point, line
// breaks and tabs as their keys, other control characters as nothing.
func TestTypedKeys(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []uint32
	}{
		{"ASCII, shift levels left to the desktop", "aZ!", []uint32{'a', 'Z', '!'}},
		{"Latin-1", "café ü", []uint32{'c', 'a', 'f', 0xe9, ' ', 0xfc}},
		{"beyond Latin-1", "€✓", []uint32{0x010020ac, 0x01002713}},
		{"line breaks and tabs", "a\r\nb\tc\n", []uint32{'a', xkReturn, 'b', xkTab, 'c', xkReturn}},
		{"other control characters", "a\x00\x1bb\x7f", []uint32{'a', 'b'}},
		{"nothing", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := typedKeys(tt.text)
			if len(keys) != 2*len(tt.want) {
				t.Fatalf("typedKeys(%q) = %+v, want %d keys pressed and released", tt.text, keys, len(tt.want))
			}
			for i, ks := range tt.want {
				down, up := keys[2*i], keys[2*i+1]
				if down != (portal.Key{Keysym: ks, Down: true}) || up != (portal.Key{Keysym: ks}) {
					t.Errorf("character %d: %+v %+v, want %#x down then up", i, down, up, ks)
				}
			}
		})
	}
}
