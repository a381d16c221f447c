package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/whisperkey/whisperkey/internal/tabletest"
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
	type args struct {
		runtime, temp string
		uid           int
	}
	tabletest.Check(t, "SocketPath", func(a args) string {
		return SocketPath(a.runtime, a.temp, a.uid)
	}, []tabletest.Case[args, string]{
		{Name: "runtime dir", In: args{"/run/user/1000", "/tmp", 1000}, Want: "/run/user/1000/whisperkey/control.sock"},
		{Name: "no runtime dir", In: args{"", "/tmp", 1000}, Want: "/tmp/whisperkey-1000/control.sock"},
		{Name: "relative runtime dir ignored", In: args{"run", "/tmp", 7}, Want: "/tmp/whisperkey-7/control.sock"},
	})
}

func TestCheckDir(t *testing.T) {
	me := os.Getuid()
	tests := []struct {
		name  string
		make  func(t *testing.T, dir string) // makes dir
		uid   int                            // who asks
		isErr error                          // nil: private
		want  []string                       // in the error
	}{
		{"private", mkdir(0o700), me, nil, nil},
		{"missing", func(*testing.T, string) {}, me, fs.ErrNotExist, nil},
		{"others may enter", mkdir(0o755), me, ErrUnsafeDir, []string{"mode 0755", "lets other users in", "chmod 700"}},
		{"group may enter", mkdir(0o710), me, ErrUnsafeDir, []string{"mode 0710", "chmod 700"}},
		{"anyone may write", mkdir(0o777), me, ErrUnsafeDir, []string{"mode 0777"}},
		{"another user's", mkdir(0o700), me + 1, ErrUnsafeDir,
			[]string{fmt.Sprintf("belongs to uid %d (mode 0700)", me), fmt.Sprintf("not to uid %d", me+1), "rm -r", "XDG_RUNTIME_DIR"}},
		{"another user's, open to all", mkdir(0o777), me + 1, ErrUnsafeDir, []string{fmt.Sprintf("belongs to uid %d (mode 0777)", me)}},
		{"a link to a private folder", func(t *testing.T, dir string) {
			real := dir + ".real"
			mkdir(0o700)(t, real)
			if err := os.Symlink(real, dir); err != nil {
				t.Fatal(err)
			}
		}, me, ErrUnsafeDir, []string{"is a symbolic link", fmt.Sprintf("owner uid %d", me), "not a folder", "remove it"}},
		{"a file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, me, ErrUnsafeDir, []string{"is a regular file", "mode 0600", "not a folder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "whisperkey-1")
			tt.make(t, dir)
			err := checkDir(dir, tt.uid)
			if tt.isErr == nil {
				if err != nil {
					t.Fatalf("checkDir = %v, want a private folder", err)
				}
				return
			}
			if !errors.Is(err, tt.isErr) {
				t.Fatalf("checkDir = %v, want %v", err, tt.isErr)
			}
			for _, w := range append(tt.want, dir) {
				if tt.isErr == ErrUnsafeDir && !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// mkdir makes the folder with exactly mode, whatever the umask.
func mkdir(mode os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// Send checks the folder before it connects: whoever listens in a folder
// others may enter receives nothing.
func TestSendRefusesAnUnsafeFolder(t *testing.T) {
	path := sockPath(t)
	got := make(chan string, 1)
	planted(t, path, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		got <- line
	})
	if err := os.Chmod(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	err := Send(context.Background(), path, hotkey.CommandPress)
	if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), "mode 0777") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Send through a 0777 folder = %v, want ErrUnsafeDir naming the socket and the mode", err)
	}
	select {
	case line := <-got:
		t.Fatalf("the planted listener received %q", line)
	default:
	}
}

// An answer is printed on the user's terminal: Send gives it back as plain
// text, and a flood without an end of line is cut off.
func TestSendAnswersArePlainText(t *testing.T) {
	tests := []struct {
		name, reply string
		want        []string
	}{
		{"escapes in an error", "error: \x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m \u009b1mbold\r\x07 done\n",
			[]string{`WhisperKey refused "press": red bold done`}},
		{"escapes in another answer", "\x1b[1Aok\x1b[K?\n", []string{`unexpected answer`, `"ok?"`}},
		{"a flood", strings.Repeat("A", 1<<20), []string{"longer than 4096 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := sockPath(t)
			if err := privateDir(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
			planted(t, path, func(c net.Conn) {
				_, _ = bufio.NewReader(c).ReadString('\n')
				_, _ = c.Write([]byte(tt.reply))
			})
			err := Send(context.Background(), path, hotkey.CommandPress)
			if err == nil {
				t.Fatal("Send took the answer as ok")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }) {
				t.Errorf("error %q has control characters", err)
			}
		})
	}
}

// planted listens at path as a stranger would and serves each connection
// with serve, until the test ends.
func planted(t *testing.T, path string, serve func(net.Conn)) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			serve(c)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
}
