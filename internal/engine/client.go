package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// Options configure how the worker process is started and supervised.
type Options struct {
	// Exe is the program to run as the worker; default os.Executable().
	Exe string
	// Args are passed to Exe; default ["engine-worker"].
	Args []string
	// Env is added to the worker's environment.
	Env []string
	// StartTimeout bounds loading the library and model; default 3 minutes.
	StartTimeout time.Duration
	// RequestTimeout bounds one request; a worker that does not answer in
	// time is taken as hung, killed, restarted and sent the request again.
	// Default 2 minutes: a 30-s window of a large model on a slow CPU takes
	// well under one.
	RequestTimeout time.Duration
	// CrashDir receives the full output of a worker that fails to start
	// (a Go or C++ trace), so the error shows one line and this file's path.
	// Default: the per-user log directory.
	CrashDir string
	// MaxCrashes within CrashWindow make the supervisor give up; defaults 4 and 1 minute.
	MaxCrashes  int
	CrashWindow time.Duration
	// OnRestart, when set, hears that a crashed worker was started again
	// (err is why it died), to tell the user. It must return quickly.
	OnRestart func(err error)
	// Background makes a worker for work that gives way (transcriptions
	// made while the key is held): it runs below the app's CPU priority, and
	// when a request is cut short by its context, which kills the worker, a
	// new one starts in the background rather than with the next
	// request.
	Background bool
	// Busy, for a Background client, reports whether the work it gives way
	// to is running (Client.Busy of the app's main client): a worker
	// killed by a cut-short request loads again only once Busy says false,
	// so the load never takes the CPU from a dictation's transcription.
	// nil: at once.
	Busy func() bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("find own executable for the engine worker: %w", err)
		}
		o.Exe = exe
	}
	if o.Args == nil {
		o.Args = []string{"engine-worker"}
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 3 * time.Minute
	}
	if o.CrashDir == "" {
		if d, err := paths.LogDir(); err == nil {
			o.CrashDir = d
		} else {
			o.CrashDir = os.TempDir()
		}
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 2 * time.Minute
	}
	if o.MaxCrashes == 0 {
		o.MaxCrashes = 4
	}
	if o.CrashWindow == 0 {
		o.CrashWindow = time.Minute
	}
	return o, nil
}

// Client talks to one worker process at a time and restarts it when it
// crashes, re-sending the request that was in flight, so no audio is lost.
type Client struct {
	opt Options
	log *slog.Logger

	mu      sync.Mutex // one request at a time; held across restarts
	spec    Spec
	w       *proc
	ready   Ready
	crashes []time.Time
	closed  bool
	// worked holds the ops some worker of this client answered on the
	// model; bad, once set, is why the model is not run again: a worker
	// crashed on its own while loading it or on an op it had never
	// answered (modelCrashedLocked).
	worked map[string]bool
	bad    error
	// encoded is the window whose encoder output the current worker holds
	// (0: none), and encodedAt its features: a request for the same window
	// with the same features sends none, so a window's ~1 MB crosses the
	// pipe once, not once per detect and decoding attempt. The features'
	// address guards against two transcribers numbering windows alike.
	encoded   uint64
	encodedAt *float32
	sent      uint64 // feature bytes written to workers, for benchmarks

	// For a Background client: starts of a new worker, ended by Close.
	bg       context.Context
	stopBg   context.CancelFunc
	starting sync.WaitGroup

	// up says a worker is loaded (c.w != nil), readable while a request
	// or a load holds mu. inflight counts the requests made and not
	// answered, and lastEnd is when the last one ended (Busy).
	up       atomic.Bool
	inflight atomic.Int32
	lastEnd  atomic.Int64
}

// quietAfter is how long after its last request a client still counts as
// busy: a transcription's engine calls come with gaps between them (its
// features, the next window's prompt), and one ending is not the last.
const quietAfter = time.Second

// Busy reports whether a request is in flight, or one ended less than a
// second ago (Options.Busy).
func (c *Client) Busy() bool {
	return c.inflight.Load() > 0 || time.Since(time.Unix(0, c.lastEnd.Load())) < quietAfter
}

// Loaded reports whether a worker is loaded now, without waiting for a
// request or a load in flight: false while a Background client's worker
// loads again after a cut-short request.
func (c *Client) Loaded() bool { return c.up.Load() }

// Wait returns once a worker is loaded, loading one now if none is (as a
// request would); for a Background client, whose worker loads on its own.
func (c *Client) Wait(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return ErrClosed
	case c.bad != nil:
		return c.bad
	case c.w != nil:
		return nil
	}
	return c.startLocked(ctx)
}

// Start launches a worker for spec and waits until its model is loaded.
func Start(ctx context.Context, spec Spec, opt Options, log *slog.Logger) (*Client, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{opt: opt, log: log.With("pkg", "engine"), spec: spec}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.startLocked(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// StartBackground makes a client with opt.Background set whose worker
// loads in the background: a request made before it is ready waits for it.
func StartBackground(spec Spec, opt Options, log *slog.Logger) (*Client, error) {
	opt.Background = true
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{opt: opt, log: log.With("pkg", "engine", "worker", "background"), spec: spec}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startInBackgroundLocked(false)
	return c, nil
}

// startInBackgroundLocked starts a worker without waiting for it; after
// a cut-short request (deferred), once Options.Busy says false.
func (c *Client) startInBackgroundLocked(deferred bool) {
	if c.bg == nil {
		c.bg, c.stopBg = context.WithCancel(context.Background())
	}
	c.starting.Add(1)
	go func() {
		defer c.starting.Done()
		if deferred && c.opt.Busy != nil && c.opt.Busy() {
			c.log.Info("background engine worker reloads once the dictation's transcription is done")
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for c.opt.Busy() {
				select {
				case <-t.C:
				case <-c.bg.Done():
					return
				}
			}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed || c.w != nil {
			return
		}
		if err := c.startLocked(c.bg); err != nil && c.bg.Err() == nil {
			c.log.Warn("background engine worker did not start; the next request starts it", "err", err)
		}
	}()
}

// Ready reports the current worker's model facts and devices.
func (c *Client) Ready() Ready {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ready
}

// Spec is what the current worker runs.
func (c *Client) Spec() Spec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.spec
}

// WorkerPID is the running worker's process id, or 0.
func (c *Client) WorkerPID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil {
		return 0
	}
	return c.w.cmd.Process.Pid
}

// DetectLanguage returns language probabilities for a window, best first.
func (c *Client) DetectLanguage(ctx context.Context, win Window) ([]LangProb, error) {
	var out []LangProb
	req := request{Op: "detect", Window: win.ID, NMels: win.NMels, Frames: win.Frames}
	if err := c.do(ctx, req, win.Features, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Generate decodes one window with the given prompt and options.
func (c *Client) Generate(ctx context.Context, win Window, g GenerateRequest) (GenerateResult, error) {
	var res GenerateResult
	req := request{Op: "generate", Window: win.ID, NMels: win.NMels, Frames: win.Frames, Generate: &g}
	err := c.do(ctx, req, win.Features, &res)
	return res, err
}

// Align aligns a window's text tokens to its audio (word timestamps). The
// window is usually the one just decoded, whose encoder output the worker
// still holds, so its features are not sent again.
func (c *Client) Align(ctx context.Context, win Window, a AlignRequest) (AlignResult, error) {
	var res AlignResult
	req := request{Op: "align", Window: win.ID, NMels: win.NMels, Frames: win.Frames, Align: &a}
	err := c.do(ctx, req, win.Features, &res)
	return res, err
}

// FeatureBytes is how many bytes of features this client has sent to its
// workers.
func (c *Client) FeatureBytes() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

// Close stops the worker. It is safe to call more than once.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.stopBg != nil {
		c.stopBg() // a worker still loading gives up
	}
	c.closed = true
	c.stopLocked()
	c.mu.Unlock()
	c.starting.Wait()
	return nil
}

// do sends one request, restarting a crashed or hung worker and re-sending
// until it answers, the crash budget is spent, or ctx ends.
func (c *Client) do(ctx context.Context, req request, payload []float32, out any) error {
	c.inflight.Add(1)
	defer func() {
		c.lastEnd.Store(time.Now().UnixNano())
		c.inflight.Add(-1)
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	var crash error // why the worker died during this request
	for {
		if c.closed {
			return ErrClosed
		}
		if c.bad != nil {
			return c.bad
		}
		if c.w == nil {
			if err := c.startLocked(ctx); err != nil {
				return err
			}
			if crash != nil && c.opt.OnRestart != nil {
				c.opt.OnRestart(crash)
			}
		}
		send := payload
		if len(payload) > 0 && req.Window != 0 && req.Window == c.encoded && &payload[0] == c.encodedAt {
			send = nil
		}
		c.sent += uint64(len(send)) * 4
		resp, hung, err := c.roundTripLocked(ctx, req, send)
		if err == nil {
			if resp.Err != "" {
				if send == nil && len(payload) > 0 && c.encoded != 0 {
					// The worker lost the window after all: send it whole, once.
					c.log.Warn("engine worker had no cached window; sending its features", "err", resp.Err)
					c.encoded, c.encodedAt = 0, nil
					continue
				}
				c.encoded, c.encodedAt = 0, nil // a failed encode frees what the worker held
				return errors.New(resp.Err)
			}
			if len(payload) > 0 {
				c.encoded, c.encodedAt = req.Window, &payload[0]
			}
			if c.worked == nil {
				c.worked = map[string]bool{}
			}
			c.worked[req.Op] = true
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(resp.Result, out); err != nil {
				return fmt.Errorf("decode engine result: %w", err)
			}
			return nil
		}
		if ctx.Err() != nil {
			// The worker may be busy for seconds more; don't leave it computing.
			c.stopLocked()
			if c.opt.Background {
				c.startInBackgroundLocked(true)
			}
			return ctx.Err()
		}
		dead := c.w
		crash = err
		c.stopLocked() // waits for the process: its exit status is known
		if !hung && !c.worked[req.Op] && crashedOnItsOwn(dead.cmd.ProcessState) {
			return c.modelCrashedLocked(req.Op, dead)
		}
		if hung {
			c.log.Warn("engine worker did not answer in time; killed it, restarting and re-sending the request",
				"op", req.Op, "timeout", c.opt.RequestTimeout, "pid", dead.cmd.Process.Pid)
		} else {
			c.log.Warn("engine worker crashed; restarting and re-sending the request",
				"op", req.Op, "err", err, "stderr", dead.stderrTail())
		}
		if err := c.noteCrashLocked(ctx); err != nil {
			return err
		}
	}
}

// ErrModelCrashed: a worker crashed on its own (a segfault or an abort, not
// a kill from outside) while loading the model or the first time it was
// asked for something, so the model is taken as the cause: the client
// refuses every later request with this error instead of crashing again.
// A crash after the model has answered that kind of request, or a kill, is
// retried as before.
var ErrModelCrashed = errors.New("model crashed the engine worker")

// modelCrashedLocked marks the model bad after dead crashed on op, and says
// so in words a remote client may see too (the model's folder name, no path).
func (c *Client) modelCrashedLocked(op string, dead *proc) error {
	what := map[string]string{"open": "loaded", "detect": "detected a language with", "generate": "decoded audio with", "align": "timed words with"}[op]
	if what == "" {
		what = "ran " + op + " with"
	}
	model := filepath.Base(c.spec.ModelDir)
	c.bad = fmt.Errorf("the model %q crashed the engine worker (%s) the first time the worker %s it on %s, so it is not run again: "+
		"its files are damaged or forged — re-download it (whisperkey models pull NAME) or import it again (whisperkey models import PATH), or pick another model: %w",
		model, dead.cmd.ProcessState, what, c.spec.Device, ErrModelCrashed)
	c.log.Error("model crashed the engine worker; refusing it from now on", "model", c.spec.ModelDir, "op", op,
		"exit", dead.cmd.ProcessState.String(), "stderr", dead.stderrTail())
	return c.bad
}

// roundTripLocked sends req to the current worker under the request deadline.
// When the deadline or ctx ends first the worker is killed, which also
// unblocks a write to a worker that stopped reading; hung says it was the
// deadline.
func (c *Client) roundTripLocked(ctx context.Context, req request, payload []float32) (resp response, hung bool, err error) {
	rctx, cancel := context.WithTimeout(ctx, c.opt.RequestTimeout)
	defer cancel()
	w := c.w
	stopWatch := context.AfterFunc(rctx, w.kill)
	resp, err = w.roundTrip(rctx, req, payload)
	if !stopWatch() && err == nil {
		// The answer raced the kill: keep it, but the worker is gone.
		c.stopLocked()
	}
	hung = err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded)
	return resp, hung, err
}

// noteCrashLocked records a crash and waits n² × 100 ms (+ jitter) before
// the next start, or gives up after too many crashes in the window.
func (c *Client) noteCrashLocked(ctx context.Context) error {
	now := time.Now()
	keep := c.crashes[:0]
	for _, t := range c.crashes {
		if now.Sub(t) < c.opt.CrashWindow {
			keep = append(keep, t)
		}
	}
	c.crashes = append(keep, now)
	n := len(c.crashes)
	if n > c.opt.MaxCrashes {
		return fmt.Errorf("%w %d times in %s; giving up (see the log for its last output)", ErrWorkerCrashed, n, c.opt.CrashWindow)
	}
	delay := time.Duration(n*n)*100*time.Millisecond + time.Duration(rand.Int64N(int64(50*time.Millisecond)))
	select {
	case <-time.After(delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Client) startLocked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opt.StartTimeout)
	defer cancel()
	p, err := startProc(c.opt, c.spec, c.log)
	if err != nil {
		return err
	}
	resp, err := p.roundTrip(ctx, request{Op: "open", Spec: &c.spec}, nil)
	if err == nil && resp.Err != "" {
		err = &LoadError{Msg: resp.Err}
	}
	if err != nil {
		p.stop() // waits for the process and its stderr, so the tail is complete
		tail := p.stderrTail()
		var le *LoadError
		if errors.As(err, &le) {
			return le
		}
		if ctx.Err() == nil && crashedOnItsOwn(p.cmd.ProcessState) {
			return fmt.Errorf("%w (worker said: %s)", c.modelCrashedLocked("open", p), c.crashSummary(p, tail))
		}
		if tail != "" {
			return fmt.Errorf("start engine worker: %w (worker said: %s)", err, c.crashSummary(p, tail))
		}
		return fmt.Errorf("start engine worker: %w", err)
	}
	var ready Ready
	if err := json.Unmarshal(resp.Result, &ready); err != nil {
		p.stop()
		return fmt.Errorf("decode worker ready: %w", err)
	}
	c.w, c.ready = p, ready
	c.up.Store(true)
	c.log.Info("engine worker ready", "pid", ready.PID, "model", c.spec.ModelDir,
		"device", c.spec.Device, "load_ms", ready.LoadMillis)
	return nil
}

// crashSummary is one line of the worker's last output: the panic or fatal
// error line of a trace, else its last line. A longer output goes to the log
// and to a file in CrashDir, whose path the line names.
func (c *Client) crashSummary(p *proc, tail string) string {
	lines := strings.Split(tail, "\n")
	if len(lines) == 1 {
		return tail
	}
	line := lines[len(lines)-1]
	for _, l := range lines {
		if isCrashLine(l) {
			line = l
			break
		}
	}
	c.log.Error("engine worker failed to start", "pid", p.cmd.Process.Pid, "output", tail)
	path := filepath.Join(c.opt.CrashDir, fmt.Sprintf("engine-worker-%d.log", p.cmd.Process.Pid))
	if err := os.MkdirAll(c.opt.CrashDir, 0o700); err != nil {
		return line + " (its full output is in the log)"
	}
	if err := os.WriteFile(path, []byte(tail+"\n"), 0o600); err != nil {
		return line + " (its full output is in the log)"
	}
	return line + "; full output in " + path
}

func (c *Client) stopLocked() {
	c.encoded, c.encodedAt = 0, nil // a new worker holds nothing
	if c.w != nil {
		c.up.Store(false)
		c.w.stop()
		// How it ended: "exit status 0" is a clean quit; a GPU model is
		// left to the OS then, never torn down (worker.go's close).
		c.log.Info("engine worker stopped", "pid", c.w.cmd.Process.Pid, "exit", c.w.cmd.ProcessState.String())
		c.w = nil
	}
}

// proc is one worker process with the goroutines that read its output.
type proc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	bw      *bufio.Writer
	frames  chan frame    // closed when stdout ends
	done    chan struct{} // closed after cmd.Wait
	tailMu  sync.Mutex
	out     outputRing
	stopped sync.Once
}

// outputRing keeps the last tailMax bytes of the worker's output and, once a
// line starts a crash report, the first tailMax bytes from that line: a
// native crash's register dump alone is longer than the tail, and the line
// that says what happened comes first.
type outputRing struct {
	tail      []byte
	crash     []byte
	crashFull bool // crash holds tailMax bytes and takes no more
}

const tailMax = 4 << 10

// isCrashLine is the first line of a Go, C++ or signal crash report.
func isCrashLine(l string) bool {
	for _, p := range []string{"panic: ", "fatal error: ", "SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE", "terminate called", "unexpected signal"} {
		if strings.HasPrefix(l, p) || (p == "terminate called" || p == "unexpected signal") && strings.Contains(l, p) {
			return true
		}
	}
	return false
}

func (o *outputRing) add(line string) {
	o.tail = append(o.tail, line...)
	o.tail = append(o.tail, '\n')
	if len(o.tail) > tailMax {
		o.tail = o.tail[len(o.tail)-tailMax:]
	}
	if (o.crash != nil || isCrashLine(line)) && !o.crashFull {
		o.crash = append(o.crash, line...)
		o.crash = append(o.crash, '\n')
		if len(o.crash) >= tailMax {
			o.crash, o.crashFull = o.crash[:tailMax], true
		}
	}
}

// String is the crash's first lines, when the tail no longer holds them, then the tail.
func (o *outputRing) String() string {
	tail := strings.TrimSpace(string(o.tail))
	crash := strings.TrimSpace(string(o.crash))
	if crash == "" || strings.Contains(tail, crash) {
		return tail
	}
	first, _, _ := strings.Cut(crash, "\n")
	if strings.Contains(tail, first) {
		return tail
	}
	return crash + "\n…\n" + tail
}

func startProc(opt Options, spec Spec, log *slog.Logger) (*proc, error) {
	cmd := exec.Command(opt.Exe, opt.Args...)
	cmd.Env = workerEnv(runtime.GOOS, spec.Device != "cpu", append([]string{spec.LibDir}, spec.ExtraLibDirs...), append(append(os.Environ(), opt.Env...), spec.Env...))
	hideWindow(cmd)
	if opt.Background {
		belowNormal(cmd)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start engine worker %s: %w", opt.Exe, err)
	}
	if opt.Background {
		if err := lowerPriority(cmd); err != nil {
			log.Warn("could not lower the background engine worker's priority", "err", err)
		}
	}
	p := &proc{cmd: cmd, stdin: stdin, bw: bufio.NewWriterSize(stdin, 1<<20),
		frames: make(chan frame), done: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		defer close(p.frames)
		r := bufio.NewReader(stdout)
		for {
			f, err := readFrame(r)
			if err != nil {
				return
			}
			p.frames <- f
		}
	}()
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			log.Debug("worker", "pid", cmd.Process.Pid, "line", line)
			p.tailMu.Lock()
			p.out.add(line)
			p.tailMu.Unlock()
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() {
		readers.Wait()
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) roundTrip(ctx context.Context, req request, payload []float32) (response, error) {
	if err := writeFrame(p.bw, req, floatBytes(payload)); err != nil {
		return response{}, fmt.Errorf("send to worker: %w", err)
	}
	if err := p.bw.Flush(); err != nil {
		return response{}, fmt.Errorf("send to worker: %w", err)
	}
	select {
	case f, ok := <-p.frames:
		if !ok {
			<-p.done
			return response{}, fmt.Errorf("worker exited (%s)", p.cmd.ProcessState)
		}
		var resp response
		if err := json.Unmarshal(f.header, &resp); err != nil {
			return response{}, fmt.Errorf("decode worker response: %w", err)
		}
		resp.Result = f.payload
		return resp, nil
	case <-ctx.Done():
		return response{}, ctx.Err()
	}
}

// kill ends the process at once; it works on a stopped (SIGSTOP) process too.
func (p *proc) kill() { _ = p.cmd.Process.Kill() }

func (p *proc) stderrTail() string {
	p.tailMu.Lock()
	defer p.tailMu.Unlock()
	return p.out.String()
}

// stop asks the worker to quit, kills it if it does not within a second,
// and waits until its process and reader goroutines are gone.
func (p *proc) stop() {
	p.stopped.Do(func() {
		_ = writeFrame(p.bw, request{Op: "quit"}, nil)
		_ = p.bw.Flush()
		_ = p.stdin.Close()
		// Drain so the reader goroutine can finish; it ends when stdout closes.
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			for range p.frames {
			}
		}()
		select {
		case <-p.done:
		case <-time.After(time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		<-drained
	})
}
