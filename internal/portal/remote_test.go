package portal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func waitKeyboard(t *testing.T, k *RemoteKeyboard) error {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if err := k.Err(); !errors.Is(err, ErrKeyboardPending) {
			return err
		}
	}
	t.Fatal("the keyboard never became ready")
	return nil
}

// The paste keystroke through RemoteDesktop: the dialog once, the restore
// token kept privately so the next start skips it, then Ctrl+V as keysyms.
func TestRemoteKeyboard(t *testing.T) {
	p := portalBus(t)
	tokenPath := filepath.Join(t.TempDir(), "state", "remote-desktop.token")
	ctrlV := []Key{{0xffe3, true}, {'v', true}, {'v', false}, {0xffe3, false}}
	for start := 1; start <= 2; start++ {
		k := StartKeyboard(context.Background(), tokenPath, testlog.New(t, 0))
		if err := waitKeyboard(t, k); err != nil {
			t.Fatalf("start %d: %v", start, err)
		}
		if err := k.Press(context.Background(), ctrlV); err != nil {
			t.Fatalf("start %d: %v", start, err)
		}
		k.Close()
		if d := p.Dialogs(); d != 1 {
			t.Errorf("after start %d the user was asked %d times, want once", start, d)
		}
		fi, err := os.Stat(tokenPath)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("restore token file: %v, %v; want mode 0600", fi, err)
		}
	}
	keys := p.Keys()
	if len(keys) != 8 {
		t.Fatalf("the portal got %d key events, want 8: %+v", len(keys), keys)
	}
	for i, k := range keys {
		w := ctrlV[i%4]
		if uint32(k.Keysym) != w.Keysym || k.Pressed != w.Down {
			t.Errorf("key %d: %+v, want %+v", i, k, w)
		}
	}
}

func TestRemoteKeyboardDeclined(t *testing.T) {
	p := portalBus(t)
	p.AnswerStart(1)
	k := StartKeyboard(context.Background(), filepath.Join(t.TempDir(), "token"), testlog.Discard())
	defer k.Close()
	err := waitKeyboard(t, k)
	if !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "declined") {
		t.Errorf("error %v, want a declined dialog", err)
	}
	if err := k.Press(context.Background(), []Key{{'v', true}}); err == nil {
		t.Error("Press worked without a session")
	}
}

// No portal at all: the keyboard says so and Press refuses.
func TestRemoteKeyboardNoPortal(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testenv.PrivateBus(t))
	k := StartKeyboard(context.Background(), "", testlog.Discard())
	defer k.Close()
	if err := waitKeyboard(t, k); err == nil || !strings.Contains(err.Error(), "RemoteDesktop") {
		t.Errorf("error %v, want one naming the RemoteDesktop portal", err)
	}
}
