//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// nobody is the other user of these tests: its uid owns nothing here.
const nobody = 65534

// strangerReply is what a stranger answers: escape sequences that would
// retitle the terminal, clear it and colour what follows.
const strangerReply = "error: \x1b]0;owned\x07\x1b[2J\x1b[31myour key was pressed\x1b[0m\r\n"

// Without XDG_RUNTIME_DIR the control socket's folder is in the shared temp
// dir, where another user may make it first and listen there. `ptt`
// checks the folder and the listener's uid and sends such a stranger
// nothing; what a listener of ours answers is printed as plain text.
func TestPTTRefusesAStrangersSocket(t *testing.T) {
	if sock := os.Getenv("WHISPERKEY_TEST_STRANGER"); sock != "" {
		stranger(sock)
		return
	}
	me := os.Getuid()
	tests := []struct {
		name string
		// plant makes the folder dir, where our socket would be, and
		// returns where the stranger listens and as whom.
		plant func(t *testing.T, top, dir string) (sock string, uid int)
		// then runs once the stranger listens.
		then     func(t *testing.T, sock, dir string)
		wantCode int
		want     []string // in stderr
		sent     bool     // the command reaches the listener
	}{
		{"folder made by another user", func(t *testing.T, top, dir string) (string, int) {
			mkdirOwned(t, dir, 0o755, nobody)
			return filepath.Join(dir, "control.sock"), nobody
		}, nil, 1, []string{fmt.Sprintf("%s belongs to uid %d (mode 0755), not to uid %d", "DIR", nobody, me), "rm -r DIR",
			"was not used"}, false},
		{"folder open to all", func(t *testing.T, top, dir string) (string, int) {
			mkdirOwned(t, dir, 0o777, me)
			return filepath.Join(dir, "control.sock"), nobody
		}, nil, 1, []string{fmt.Sprintf("DIR (owner uid %d) has mode 0777", me), "chmod 700 DIR"}, false},
		{"another user's socket in our folder", func(t *testing.T, top, dir string) (string, int) {
			mkdirOwned(t, dir, 0o700, me)
			theirs := filepath.Join(top, "theirs")
			mkdirOwned(t, theirs, 0o700, nobody)
			return filepath.Join(theirs, "control.sock"), nobody
		}, func(t *testing.T, sock, dir string) {
			// As root may: the socket moves, its listener stays.
			if err := os.Rename(sock, filepath.Join(dir, "control.sock")); err != nil {
				t.Fatal(err)
			}
		}, 1, []string{fmt.Sprintf("uid %d listens on DIR/control.sock, not uid %d", nobody, me), "nothing was sent"}, false},
		{"our listener answers with escapes", func(t *testing.T, top, dir string) (string, int) {
			mkdirOwned(t, dir, 0o700, me)
			return filepath.Join(dir, "control.sock"), me
		}, nil, 1, []string{`WhisperKey refused "press": your key was pressed`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := sharedTemp(t)
			dir := filepath.Join(top, fmt.Sprintf("whisperkey-%d", me))
			sock, uid := tt.plant(t, top, dir)
			if uid != me && me != 0 {
				t.Skip("acting as another user needs root (CI runs the tests as root)")
			}
			stop := startStranger(t, top, sock, uid)
			if tt.then != nil {
				tt.then(t, sock, dir)
			}
			cmd := exec.Command(binary(t), "ptt", "press")
			cmd.Env = append(os.Environ(), "TMPDIR="+top, "XDG_RUNTIME_DIR=")
			r := runCmd(t, cmd)
			heard := stop()
			if r.code != tt.wantCode {
				t.Errorf("ptt press: exit %d, want %d; stderr %q", r.code, tt.wantCode, r.stderr)
			}
			for _, w := range tt.want {
				if w = strings.ReplaceAll(w, "DIR", dir); !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
			if strings.ContainsAny(r.stderr+r.stdout, "\x1b\a\r") {
				t.Errorf("ptt printed control characters: %q", r.stderr+r.stdout)
			}
			if got := strings.Contains(heard, `received "ptt press"`); got != tt.sent {
				t.Errorf("the listener heard %q; want the command sent: %v", heard, tt.sent)
			}
		})
	}
}

// The app refuses a control socket folder that another user made first:
// it does not listen there, keeps running, and says so in its tray; `ptt`
// then says why it cannot reach it.
func TestAppRefusesAStrangersSocketFolder(t *testing.T) {
	desktopSession(t)
	if os.Getuid() != 0 {
		t.Skip("acting as another user needs root (CI runs the tests as root)")
	}
	top := sharedTemp(t)
	dir := filepath.Join(top, "whisperkey-0")
	mkdirOwned(t, dir, 0o755, nobody)
	sock := filepath.Join(dir, "control.sock")
	stop := startStranger(t, top, sock, nobody)
	env := []string{"TMPDIR=" + top, "XDG_RUNTIME_DIR=",
		"PULSE_SERVER=unix:" + filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "pulse", "native")}
	a, _ := launchApp(t, "model: "+testenv.Model(t, "base")+"\n", env...)
	status := a.waitStatus(t, "no control socket", 120*time.Second)
	t.Logf("tray status: %s", status)
	for _, w := range []string{"`whisperkey ptt` cannot reach this app", dir + " belongs to uid 65534 (mode 0755)", "rm -r " + dir} {
		if !strings.Contains(status, w) {
			t.Errorf("tray status %q does not say %q", status, w)
		}
	}
	cmd := exec.Command(binary(t), "ptt", "press")
	cmd.Env = append(os.Environ(), env...)
	if r := runCmd(t, cmd); r.code != 1 || !strings.Contains(r.stderr, dir+" belongs to uid 65534") {
		t.Errorf("ptt press: exit %d, stderr %q; want 1 naming the folder's owner", r.code, r.stderr)
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("the stranger's socket was touched: %v", err)
	}
	if heard := stop(); strings.Contains(heard, "connected") {
		t.Errorf("the stranger's listener was reached: %q", heard)
	}
}

// sharedTemp is a folder in the temp dir that every user may enter, as
// /tmp is, removed at the end of the test.
func sharedTemp(t *testing.T) string {
	t.Helper()
	top, err := os.MkdirTemp("", "wkptt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	return top
}

// mkdirOwned makes dir with exactly mode, owned by uid.
func mkdirOwned(t *testing.T, dir string, mode os.FileMode, uid int) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if uid != os.Getuid() {
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
}

// startStranger runs this test binary as uid, listening at sock (see
// stranger), and returns once it listens. The returned stop ends it and
// returns what it heard.
func startStranger(t *testing.T, top, sock string, uid int) (stop func() string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if uid != os.Getuid() { // the build folder is private: a copy the stranger may run
		copied := filepath.Join(top, "stranger.test")
		if err := copyExe(exe, copied); err != nil {
			t.Fatal(err)
		}
		exe = copied
	}
	cmd := exec.Command(exe, "-test.run=^TestPTTRefusesAStrangersSocket$")
	cmd.Dir = top
	cmd.Env = append(os.Environ(), "WHISPERKEY_TEST_STRANGER="+sock)
	if uid != os.Getuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	in, out := testenv.StartPiped(t, cmd)
	rd := bufio.NewReader(out)
	if line, _ := rd.ReadString('\n'); line != "listening\n" {
		in.Close()
		_ = cmd.Wait()
		t.Fatalf("the stranger did not listen: %q", line)
	}
	var once sync.Once
	var heard string
	stop = func() string {
		once.Do(func() {
			in.Close()
			rest, _ := io.ReadAll(rd)
			_ = cmd.Wait()
			heard = string(rest)
		})
		return heard
	}
	t.Cleanup(func() { stop() })
	return stop
}

func copyExe(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// stranger listens at sock, says "listening", then reports each connection
// and each line it receives, answering strangerReply; it stops when its
// stdin closes, once its connections have ended.
func stranger(sock string) {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	_ = os.Chmod(sock, 0o777) // anyone may connect, as a trap would let them
	fmt.Println("listening")
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		ln.Close()
	}()
	var wg sync.WaitGroup
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		fmt.Println("connected")
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				fmt.Printf("received %q\n", sc.Text())
				fmt.Fprint(c, strangerReply)
			}
		}()
	}
	wg.Wait()
}
