package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is the app's side: it keeps the commands it was given.
type recorder struct {
	mu   sync.Mutex
	got  []hotkey.Command
	fail error
}

func (r *recorder) PTT(c hotkey.Command) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, c)
	return r.fail
}

func (r *recorder) commands() []hotkey.Command {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// sockPath is a socket path in a fresh private folder; unix socket paths
// are short, so it stays out of the long test temp names.
func sockPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wkctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "run", "control.sock")
}

func listen(t *testing.T, path string, h Handler) *Server {
	t.Helper()
	s, err := Listen(path, h, testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCommandsReachTheApp(t *testing.T) {
	path := sockPath(t)
	r := &recorder{}
	s := listen(t, path, r)
	ctx := context.Background()
	for _, c := range []hotkey.Command{hotkey.CommandPress, hotkey.CommandRelease, hotkey.CommandToggle} {
		if err := Send(ctx, path, c); err != nil {
			t.Fatalf("Send %s: %v", c, err)
		}
	}
	if got, want := r.commands(), []hotkey.Command{hotkey.CommandPress, hotkey.CommandRelease, hotkey.CommandToggle}; !slices.Equal(got, want) {
		t.Fatalf("app got %v, want %v", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("socket folder mode %v, want 0700", di.Mode().Perm())
	}

	r.fail = errors.New("no microphone")
	if err := Send(ctx, path, hotkey.CommandPress); err == nil || !strings.Contains(err.Error(), "no microphone") {
		t.Errorf("app's error not passed on: %v", err)
	}

	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind after Close: %v", err)
	}
	if err := Send(ctx, path, hotkey.CommandPress); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Send after Close = %v, want ErrNotRunning", err)
	}
}

func TestSendErrorsSayWhatToDo(t *testing.T) {
	stale := sockPath(t)
	if err := privateDir(filepath.Dir(stale)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false) // as a killed app leaves it
	ln.Close()

	tests := []struct {
		name string
		path string
		want []string
	}{
		{"app not running", filepath.Join(filepath.Dir(stale), "none.sock"), []string{"not running", "no control socket", "whisperkey run"}},
		{"socket refused", stale, []string{"not running", "refuses connections", "start WhisperKey again"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Send(context.Background(), tt.path, hotkey.CommandPress)
			if !errors.Is(err, ErrNotRunning) {
				t.Fatalf("Send = %v, want ErrNotRunning", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}

	// A new app replaces the stale socket (it holds the instance guard).
	r := &recorder{}
	listen(t, stale, r)
	if err := Send(context.Background(), stale, hotkey.CommandToggle); err != nil {
		t.Fatalf("Send after the stale socket was replaced: %v", err)
	}
}

func TestUnsafeFolderRefused(t *testing.T) {
	path := sockPath(t)
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	_, err := Listen(path, &recorder{}, testlog.New(t, slog.LevelDebug))
	if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("Listen in a 0755 folder = %v, want ErrUnsafeDir naming chmod 700", err)
	}
	link := filepath.Join(filepath.Dir(filepath.Dir(path)), "link")
	if err := os.Symlink(filepath.Dir(path), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(filepath.Join(link, "control.sock"), &recorder{}, testlog.New(t, slog.LevelDebug)); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("Listen through a symlinked folder = %v, want ErrUnsafeDir", err)
	}
}

// Requests other than ptt, and unknown commands, are answered with an error
// and leave the app alone.
func TestBadRequests(t *testing.T) {
	path := sockPath(t)
	r := &recorder{}
	listen(t, path, r)
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	for _, tt := range []struct{ req, want string }{
		{"quit", `error: unknown request "quit"`},
		{"ptt hold", `error: unknown command "hold"`},
		{"ptt press", "ok"},
	} {
		fmt.Fprintln(c, tt.req)
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(strings.TrimSpace(line), tt.want) {
			t.Errorf("%q answered %q, want %q…", tt.req, line, tt.want)
		}
	}
	if got := r.commands(); !slices.Equal(got, []hotkey.Command{hotkey.CommandPress}) {
		t.Errorf("app got %v, want only the valid press", got)
	}
}

func TestSocketPath(t *testing.T) {
	tests := []struct {
		name, runtime, temp string
		uid                 int
		want                string
	}{
		{"runtime dir", "/run/user/1000", "/tmp", 1000, "/run/user/1000/whisperkey/control.sock"},
		{"no runtime dir", "", "/tmp", 1000, "/tmp/whisperkey-1000/control.sock"},
		{"relative runtime dir ignored", "run", "/tmp", 7, "/tmp/whisperkey-7/control.sock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SocketPath(tt.runtime, tt.temp, tt.uid); got != tt.want {
				t.Errorf("SocketPath = %q, want %q", got, tt.want)
			}
		})
	}
}
