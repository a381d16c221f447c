package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// noConfig is a config file that sets nothing, so a test's settings are its
// flags alone, not the machine's config.
func noConfig(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte("# defaults\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitHTTP waits until url answers 200, or fails naming what p said.
func waitHTTP(t testing.TB, url string, limit time.Duration, p *proc) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s: the server exited: %v\n%s", url, p.err, p.out)
		case <-time.After(250 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not answer within %s:\n%s", url, limit, p.out)
}

// proc is a process a test started; it is killed when the test ends.
type proc struct {
	out  *testenv.Buffer
	done chan struct{}
	err  error // the exit, once done is closed
}

// start runs cmd until the test ends, in a process group of its own: nginx's
// workers (children that hold its output open) end with it.
func start(t testing.TB, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{out: &testenv.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 10 * time.Second // a child still holding the output cannot hang Wait
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// `transcribe --remote` to an OpenAI-compatible server we did not write,
// faster-whisper-server 0.0.3 (PyPI) on the same model, gives faster-whisper's
// own words for the same audio: what we send is what the file holds, cut
// after its speech as every dictation is (dictation.EngineInput).
func TestRemoteToFasterWhisperServer(t *testing.T) {
	py, model := testenv.Python(t), testenv.Model(t, "base")
	if out, err := exec.Command(py, "-c", "import faster_whisper_server").CombinedOutput(); err != nil {
		testenv.Require(t, "faster-whisper-server in the venv ("+strings.TrimSpace(string(out))+")", "make deps (scripts/pyenv.sh)")
	}
	addr := freePort(t)
	host, port, _ := strings.Cut(addr, ":")
	srv := start(t, exec.Command(py, "-m", "faster_whisper_server", model, "--host", host, "--port", port))
	waitHTTP(t, "http://"+addr+"/health", 2*time.Minute, srv)

	var files, sent []string
	det := vadtest.Open(t)
	for _, c := range testenv.RealSpeech(t)[:3] {
		f := filepath.Join(testenv.Cache(), "speech", c.Name+".wav")
		files = append(files, f)
		sent = append(sent, cutWAV(t, det, f))
	}
	const direct = `
import sys
from faster_whisper import WhisperModel
m = WhisperModel(sys.argv[1])
for f in sys.argv[2:]:
    segs, _ = m.transcribe(f, language="en")
    print("".join(s.text for s in segs).strip())
`
	want, err := exec.Command(py, append([]string{"-c", direct, model}, sent...)...).Output()
	if err != nil {
		t.Fatalf("faster-whisper: %v", err)
	}
	// The server loads its model on the first request (our client gives a
	// file 5 min), so the first file also warms it up.
	r := whisperkey(t, append([]string{"transcribe", "--config", noConfig(t), "--remote", "http://" + addr, "--language", "en"}, files...)...)
	if r.code != 0 {
		t.Fatalf("transcribe --remote: exit %d: %s\nserver:\n%s", r.code, r.stderr, srv.out)
	}
	got, exp := strings.Split(strings.TrimSpace(r.stdout), "\n"), strings.Split(strings.TrimSpace(string(want)), "\n")
	if len(got) != len(files) || len(exp) != len(files) {
		t.Fatalf("%d files: our client printed %q, faster-whisper %q", len(files), got, exp)
	}
	for i := range files {
		if got[i] != exp[i] {
			t.Errorf("%s: through faster-whisper-server %q, faster-whisper itself %q", filepath.Base(files[i]), got[i], exp[i])
		}
	}
}

// cutWAV writes the samples of file up to the speech detector's cut, as
// float WAV: what `transcribe --remote` uploads for it.
func cutWAV(t *testing.T, det *vad.Detector, file string) string {
	t.Helper()
	s, err := audio.DecodeFile(file, audio.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := audio.EncodeWAV(&b, dictation.EngineInput(det, s, whisper.DefaultOptions()), audio.SampleRate, 1, audio.Float32); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(file))
	if err := os.WriteFile(out, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// Two `serve` instances behind nginx (Debian's package), as a team that
// outgrows one server would run them: one is stopped in the middle of a run
// of dictations, and none is lost. serve lets its requests in flight finish;
// nginx sends the next ones to the other.
func TestTwoServersBehindNginx(t *testing.T) {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
		if _, err := os.Stat(nginx); err != nil {
			testenv.Require(t, "nginx", "make deps (apt-get install nginx)")
		}
	}
	a, b := startServe(t), startServe(t)
	front := freePort(t)
	dir := t.TempDir()
	conf := fmt.Sprintf(`daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 64; }
http {
  access_log %[1]s/access.log;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  upstream whisperkey {
    server %[2]s max_fails=1 fail_timeout=30s;
    server %[3]s max_fails=1 fail_timeout=30s;
  }
  server {
    listen %[4]s;
    client_max_body_size 25m;
    # In memory: nginx's worker (nobody) may not write the test's temp folder.
    client_body_buffer_size 25m;
    location / {
      proxy_pass http://whisperkey;
      proxy_set_header Host $host;
      proxy_read_timeout 300s;
      # A stopped instance refuses the connection: the request goes to the other.
      proxy_next_upstream error timeout http_502 http_503;
    }
  }
}
`, dir, strings.TrimPrefix(a.url, "http://"), strings.TrimPrefix(b.url, "http://"), front)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	lb := start(t, exec.Command(nginx, "-p", dir, "-c", filepath.Join(dir, "nginx.conf")))
	waitHTTP(t, "http://"+front+"/health", 30*time.Second, lb)

	const said = "Please call me back when you get this message."
	wav := speechWAV(t, said)
	files := make([]string, 6)
	for i := range files {
		files[i] = wav
	}
	cmd := exec.CommandContext(context.Background(), binary(t), append([]string{"transcribe", "--config", noConfig(t),
		"--remote", "http://" + front, "--language", "en", "--json"}, files...)...)
	cmd.Env = os.Environ()
	run := start(t, cmd)
	// Stop one instance once it has answered a dictation: later ones, and
	// any it holds, must still come back.
	const answered = "path=/v1/audio/transcriptions status=200"
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(a.stderr.String()+b.stderr.String(), answered) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	victim := a
	if !strings.Contains(a.stderr.String(), answered) {
		victim = b
	}
	if err := victim.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.done:
		if run.err != nil {
			elog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("transcribe through nginx: %v\n%s\nnginx:\n%s%s", run.err, run.out, lb.out, elog)
		}
	case <-time.After(10 * time.Minute):
		t.Fatalf("transcribe through nginx did not finish:\n%s", run.out)
	}
	right := 0
	for _, r := range parseTranscribed(t, run.out.String()) {
		if whisper.WordErrorRate(said, r.Text) <= 0.2 {
			right++
		}
	}
	if right != len(files) {
		t.Fatalf("%d of %d dictations came back right:\n%s", right, len(files), run.out)
	}
	t.Logf("%d dictations through nginx, one of the two servers stopped after the first answer: all came back", len(files))
}
