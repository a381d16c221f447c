package portal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// IfaceRemoteDesktop is the RemoteDesktop portal's interface.
const IfaceRemoteDesktop = "org.freedesktop.portal.RemoteDesktop"

const (
	deviceKeyboard = 1
	// persistUntilRevoked keeps the permission until the user revokes it
	// (RemoteDesktop version 2): the dialog is shown once.
	persistUntilRevoked = 2
	// startTimeout bounds the wait for the user's answer to the dialog.
	startTimeout = 10 * time.Minute
)

// ErrKeyboardPending means the desktop has not yet answered whether
// WhisperKey may press keys (its dialog is open).
var ErrKeyboardPending = errors.New("the desktop has not yet allowed WhisperKey to press keys: answer its remote-control dialog")

// Key is one key event: a keysym going down or up.
type Key struct {
	Keysym uint32
	Down   bool
}

// RemoteKeyboard is a RemoteDesktop session with the keyboard alone: keys
// pressed through it reach the focused window. Starting it shows the
// desktop's approval dialog once; the restore token it gets back, kept in
// a file, lets later starts skip the dialog until the user revokes it.
type RemoteKeyboard struct {
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	ready   chan struct{} // closed once the session started or failed
	err     error         // why there is no keyboard; nil when there is
	conn    *Conn
	session *Session
}

// StartKeyboard opens the session in the background; tokenPath is where
// the restore token is kept ("" keeps none: the dialog every start).
func StartKeyboard(ctx context.Context, tokenPath string, log *slog.Logger) *RemoteKeyboard {
	ctx, cancel := context.WithCancel(ctx)
	k := &RemoteKeyboard{log: log.With("pkg", "portal"), cancel: cancel, done: make(chan struct{}), ready: make(chan struct{})}
	go func() {
		defer close(k.done)
		closed, err := k.start(ctx, tokenPath)
		k.mu.Lock()
		k.err = err
		k.mu.Unlock()
		close(k.ready)
		if err != nil {
			if ctx.Err() == nil {
				k.log.Warn("no paste keystroke through the RemoteDesktop portal", "err", err)
			}
			return
		}
		k.log.Info("paste keystroke through the RemoteDesktop portal ready")
		defer k.conn.Close()
		select {
		case <-ctx.Done():
			_ = k.session.Close()
		case <-closed:
			k.mu.Lock()
			k.err = errors.New("the desktop ended WhisperKey's remote control (revoked, or the session closed); restart WhisperKey to be asked again")
			k.mu.Unlock()
			k.log.Warn("the RemoteDesktop session was closed by the desktop")
		}
	}()
	return k
}

// start opens the session; closed is closed when the desktop ends it.
func (k *RemoteKeyboard) start(ctx context.Context, tokenPath string) (closed <-chan struct{}, err error) {
	c, err := Connect(ctx, k.log)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (<-chan struct{}, error) {
		c.Close()
		if errors.Is(err, ErrCancelled) {
			return nil, fmt.Errorf("remote control was declined in the desktop's dialog; restart WhisperKey to be asked again (%w)", err)
		}
		return nil, fmt.Errorf("RemoteDesktop portal: %w", err)
	}
	version, err := c.Version(ctx, IfaceRemoteDesktop)
	if err != nil {
		return fail(err)
	}
	// Listen for the session's end before it exists; the path is known
	// once CreateSession answers.
	ended := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var path dbus.ObjectPath
	if _, err := c.watch(ifaceSession, func(sig *dbus.Signal) {
		mu.Lock()
		p := path
		mu.Unlock()
		if sig.Name == ifaceSession+".Closed" && sig.Path == p {
			once.Do(func() { close(ended) })
		}
	}); err != nil {
		return fail(err)
	}
	s, err := c.createSession(ctx, IfaceRemoteDesktop)
	if err != nil {
		return fail(err)
	}
	mu.Lock()
	path = s.path
	mu.Unlock()
	opts := map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(deviceKeyboard))}
	if version >= 2 {
		opts["persist_mode"] = dbus.MakeVariant(uint32(persistUntilRevoked))
		if tok := readToken(tokenPath); tok != "" {
			opts["restore_token"] = dbus.MakeVariant(tok)
		}
	}
	if _, err := c.request(ctx, IfaceRemoteDesktop+".SelectDevices", opts, s.path); err != nil {
		return fail(err)
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	res, err := c.request(sctx, IfaceRemoteDesktop+".Start", nil, s.path, "")
	cancel()
	if err != nil {
		return fail(err)
	}
	if dev, _ := res["devices"].Value().(uint32); dev&deviceKeyboard == 0 {
		return fail(errors.New("the desktop granted no keyboard"))
	}
	if tok, _ := res["restore_token"].Value().(string); tok != "" && tokenPath != "" {
		if err := writeToken(tokenPath, tok); err != nil {
			k.log.Warn("cannot keep the remote-control permission; the desktop will ask again next start", "err", err)
		}
	}
	k.mu.Lock()
	k.conn, k.session = c, s
	k.mu.Unlock()
	return ended, nil
}

// Err is why no key can be pressed: ErrKeyboardPending while the dialog
// waits, nil once the keyboard is ready.
func (k *RemoteKeyboard) Err() error {
	select {
	case <-k.ready:
	default:
		return ErrKeyboardPending
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// Press sends keys in order and returns once the portal took them all.
func (k *RemoteKeyboard) Press(ctx context.Context, keys []Key) error {
	if err := k.Err(); err != nil {
		return err
	}
	k.mu.Lock()
	c, s := k.conn, k.session
	k.mu.Unlock()
	obj := c.bus.Object(BusName, ObjectPath)
	var errs []error
	for i, key := range keys {
		state := uint32(0)
		if key.Down {
			state = 1
		}
		err := obj.CallWithContext(ctx, IfaceRemoteDesktop+".NotifyKeyboardKeysym", 0, s.path, map[string]dbus.Variant{}, int32(key.Keysym), state).Err
		if err != nil {
			errs = append(errs, fmt.Errorf("press keysym %#x through the RemoteDesktop portal: %w", key.Keysym, err))
			// Let go of every key still down, so none stays stuck.
			for _, up := range keys[i+1:] {
				if !up.Down {
					_ = obj.CallWithContext(ctx, IfaceRemoteDesktop+".NotifyKeyboardKeysym", 0, s.path, map[string]dbus.Variant{}, int32(up.Keysym), uint32(0)).Err
				}
			}
			break
		}
	}
	return errors.Join(errs...)
}

// Close ends the session and waits for its goroutine.
func (k *RemoteKeyboard) Close() error {
	k.cancel()
	<-k.done
	return nil
}

func readToken(path string) string {
	if path == "" {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// writeToken keeps the token where only this user reads it: it stands for
// the permission to press keys in any window.
func writeToken(path, tok string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("keep the restore token: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return fmt.Errorf("keep the restore token: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("keep the restore token: %w", err)
	}
	return nil
}
