package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/paths"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

// Handler is what the server drives: the record hotkey of the running app.
type Handler interface {
	PTT(c hotkey.Command) error
}

var (
	// ErrNotRunning means no app answers on the socket: none was started,
	// or one crashed and left its socket behind.
	ErrNotRunning = errors.New("WhisperKey is not running")
	// ErrUnsafeDir means the socket's folder is not ours alone, so another
	// user could listen in our place or drive our app.
	ErrUnsafeDir = errors.New("the control socket's folder is not private")
	// ErrForeignPeer means another user's process listens on the socket.
	ErrForeignPeer = errors.New("the control socket is served by another user")
)

// SocketPath is the control socket: in the per-user runtime folder when
// there is one (only its owner can enter it), else in a folder of our own
// under the temp dir, with the uid in its name.
func SocketPath(runtimeDir, tempDir string, uid int) string {
	if runtimeDir != "" && filepath.IsAbs(runtimeDir) {
		return filepath.Join(runtimeDir, "whisperkey", "control.sock")
	}
	return filepath.Join(tempDir, fmt.Sprintf("whisperkey-%d", uid), "control.sock")
}

// DefaultPath is SocketPath for this process's user.
func DefaultPath() string {
	return SocketPath(paths.RuntimeDir(), os.TempDir(), os.Getuid())
}

// privateDir makes dir (mode 0700) or checks that the one there is a real
// folder of ours that nobody else may enter.
func privateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := checkDir(dir, os.Getuid()); err != nil {
		if errors.Is(err, ErrUnsafeDir) {
			return err
		}
		return fmt.Errorf("check %s: %w", dir, err)
	}
	return nil
}

// checkDir says whether dir is a folder only uid may enter: a real folder
// (not a link), owned by uid, with no access for group or others. Where
// the OS keeps no owner, only the kind and the mode are checked. An error
// that is not ErrUnsafeDir is Lstat's (fs.ErrNotExist: no folder).
//
// Both sides check: the app before it listens there, `ptt` before it
// sends there. A folder in the shared temp dir may have been made first
// by another user, who would then receive the commands and answer them.
func checkDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	owner, known := ownerOf(fi)
	who := "owner unknown"
	if known {
		who = fmt.Sprintf("owner uid %d", owner)
	}
	mode := fi.Mode().Perm()
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is %s (%s, mode %04o), not a folder; remove it and start WhisperKey again",
			ErrUnsafeDir, dir, paths.Kind(fi.Mode()), who, mode)
	case known && owner != uid:
		return fmt.Errorf("%w: %s belongs to uid %d (mode %04o), not to uid %d who runs WhisperKey, so another user "+
			"could receive your commands there; remove it (as root: rm -r %s) and start WhisperKey again, "+
			"or set XDG_RUNTIME_DIR to your private runtime folder", ErrUnsafeDir, dir, owner, mode, uid, dir)
	case mode&0o077 != 0:
		return fmt.Errorf("%w: %s (%s) has mode %04o, which lets other users in; run chmod 700 %s and start WhisperKey again",
			ErrUnsafeDir, dir, who, mode, dir)
	}
	return nil
}

// Server answers commands on the socket until Close.
type Server struct {
	path string
	ln   *net.UnixListener
	h    Handler
	log  *slog.Logger

	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
	once   sync.Once
}

// Listen opens the socket at path and serves h. The caller must hold the
// single-instance guard: a socket file already there is then a crashed
// app's, and is replaced.
func Listen(path string, h Handler, log *slog.Logger) (*Server, error) {
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove the old control socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	// The folder already keeps others out; the socket's own mode says so too.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	s := &Server{path: path, ln: ln, h: h, log: log.With("pkg", "control"), conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is where the socket listens.
func (s *Server) Path() string { return s.path }

// Close stops listening, ends open connections, waits for their goroutines
// and removes the socket. Idempotent.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		// Closing a listener that Go created unlinks its socket file.
		err = s.ln.Close()
		s.wg.Wait()
	})
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Warn("control socket stopped accepting", "err", err)
			}
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve answers each line of one connection with "ok" or "error: …".
func (s *Server) serve(c *net.UnixConn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	uid, err := peerUID(c)
	switch {
	case err == nil && uid != os.Getuid():
		s.log.Warn("control connection from another user refused", "uid", uid)
		fmt.Fprintf(c, "error: uid %d may not drive this app\n", uid)
		return
	case err != nil && !errors.Is(err, errors.ErrUnsupported):
		s.log.Warn("control connection refused: its user is unknown", "err", err)
		return
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 256), 256) // commands are short; a flood is cut off
	for sc.Scan() {
		reply := "ok"
		verb, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		cmd, err := hotkey.ParseCommand(strings.TrimSpace(arg))
		switch {
		case verb != "ptt":
			reply = fmt.Sprintf("error: unknown request %q (this app knows ptt press|release|toggle|cancel)", verb)
		case err != nil:
			reply = "error: " + err.Error()
		default:
			s.log.Debug("control command", "cmd", cmd.String())
			if err := s.h.PTT(cmd); err != nil {
				reply = "error: " + err.Error()
			}
		}
		if _, err := fmt.Fprintln(c, reply); err != nil {
			return
		}
	}
}

// maxReply bounds an answer: the app's are one short line, and a
// stranger's must not fill the memory of `ptt`.
const maxReply = 4096

// Send asks the app listening at path to run cmd and waits for its answer.
// An app that is not running is ErrNotRunning, with what to do. Before it
// sends anything it checks that the socket's folder is ours alone
// (ErrUnsafeDir) and, where the OS tells, that the process listening runs
// as us (ErrForeignPeer). The app's answer comes back as plain text.
func Send(ctx context.Context, path string, cmd hotkey.Command) error {
	if err := checkDir(filepath.Dir(path), os.Getuid()); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (no control socket at %s): start it with `whisperkey run` or from your desktop's menu, then press the key again", ErrNotRunning, path)
	} else if err != nil {
		return fmt.Errorf("WhisperKey's control socket %s was not used: %w", path, err)
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOENT):
			return fmt.Errorf("%w (no control socket at %s): start it with `whisperkey run` or from your desktop's menu, then press the key again", ErrNotRunning, path)
		case errors.Is(err, syscall.ECONNREFUSED):
			return fmt.Errorf("%w: %s refuses connections (left by an app that crashed or was killed): start WhisperKey again", ErrNotRunning, path)
		case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
			return fmt.Errorf("cannot open the control socket %s: %w; run `whisperkey ptt` as the user who runs the app", path, err)
		}
		return fmt.Errorf("connect to the control socket %s: %w", path, err)
	}
	defer c.Close()
	if uc, ok := c.(*net.UnixConn); ok {
		uid, err := peerUID(uc)
		switch {
		case err == nil && uid != os.Getuid():
			return fmt.Errorf("%w: uid %d listens on %s, not uid %d who runs `ptt`, and nothing was sent to it; "+
				"remove the socket (as root: rm %s) and start WhisperKey again", ErrForeignPeer, uid, path, os.Getuid(), path)
		case err != nil && !errors.Is(err, errors.ErrUnsupported):
			return fmt.Errorf("check who listens on the control socket %s: %w", path, err)
		}
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	}
	if _, err := fmt.Fprintf(c, "ptt %s\n", cmd); err != nil {
		return fmt.Errorf("send to %s: %w", path, err)
	}
	line, err := bufio.NewReader(io.LimitReader(c, maxReply)).ReadString('\n')
	if err != nil {
		if len(line) >= maxReply {
			return fmt.Errorf("the answer on %s is longer than %d bytes, which WhisperKey never sends; is something else listening there?", path, maxReply)
		}
		return fmt.Errorf("no answer from WhisperKey on %s: %w", path, err)
	}
	// What comes back is printed on the user's terminal: words only.
	line = textproc.Sanitize(line)
	if msg, bad := strings.CutPrefix(line, "error: "); bad {
		return fmt.Errorf("WhisperKey refused %q: %s", cmd, msg)
	}
	if line != "ok" {
		return fmt.Errorf("unexpected answer from %s: %q", path, line)
	}
	return nil
}
