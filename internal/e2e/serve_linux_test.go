//go:build linux

package e2e

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// An address other machines can reach, without a key, is refused before
// anything loads, with a message saying how to fix it.
func TestServeRefusesOpenAddress(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		r := whisperkey(t, "serve", "--listen", addr)
		if r.code != 2 || !strings.Contains(r.stderr, "non-loopback") || !strings.Contains(r.stderr, "--api-key") ||
			!strings.Contains(r.stderr, "--insecure-no-auth") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("serve --listen %s: exit %d, stderr %q; want exit 2 and one line naming --api-key and --insecure-no-auth", addr, r.code, r.stderr)
		}
	}
}

// servedBinary is `whisperkey serve` running on a loopback port.
type servedBinary struct {
	cmd    *exec.Cmd
	url    string
	stderr *testenv.Buffer
	done   chan error
}

func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe runs the real binary on base, on the CPU, and waits until it
// answers GET /v1/models.
func startServe(t testing.TB, args ...string) *servedBinary {
	t.Helper()
	return startServeWith(t, append([]string{"--model", testenv.Model(t, "base"), "--device", "cpu"}, args...)...)
}

// startServeWith is startServe with only args after --listen.
func startServeWith(t testing.TB, args ...string) *servedBinary {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(binary(t), append([]string{"serve", "--listen", addr}, args...)...)
	cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)), "WHISPERKEY_CACHE="+t.TempDir(),
		"WHISPERKEY_VAD_DIR="+testenv.VADDir(t)) // as installed: the detector beside the exe
	s := &servedBinary{cmd: cmd, url: "http://" + addr, stderr: &testenv.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("serve's output:\n%s", s.stderr)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.url + "/v1/models")
		if err == nil {
			resp.Body.Close()
			return s
		}
		select {
		case err := <-s.done:
			s.done <- err // for the cleanup, which waits for it
			t.Fatalf("serve exited early: %v\n%s", err, s.stderr)
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not answer within 60 s:\n%s", s.stderr)
	return nil
}

// stop sends SIGTERM and waits for a clean exit.
func (s *servedBinary) stop(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM:\n%s", err, s.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not stop within 20 s of SIGTERM:\n%s", s.stderr)
	}
}

// openaiClient drives the real openai package (PyPI) against a server.
const openaiClient = `
import sys, openai
url, key, wav = sys.argv[1], sys.argv[2], sys.argv[3]
c = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0, timeout=120)
print("VERSION", openai.__version__)
with open(wav, "rb") as f:
    r = c.audio.transcriptions.create(model="whisper-1", file=f)
print("TEXT", r.text)
with open(wav, "rb") as f:
    v = c.audio.transcriptions.create(model="whisper-1", file=f, response_format="verbose_json", language="en", temperature=0)
print("VERBOSE", v.language, len(v.segments), v.segments[0].end > v.segments[0].start, v.text)
with open(wav, "rb") as f:
    s = c.audio.transcriptions.create(model="whisper-1", file=f, response_format="srt")
print("SRT", s.splitlines()[1])
print("MODELS", ",".join(m.id for m in c.models.list().data))
bad = openai.OpenAI(base_url=url + "/v1", api_key="wrong-" + key, max_retries=0)
try:
    bad.models.list()
    print("AUTH none")
except openai.AuthenticationError as e:
    print("AUTH", e.status_code, e.body["message"] if isinstance(e.body, dict) else e.body)
`

// The openai Python package, unchanged, transcribes through our server; a
// wrong key is its AuthenticationError; SIGTERM stops the server cleanly;
// the server never logged the text or the key.
func TestServeWithOpenAIClient(t *testing.T) {
	python := testenv.Python(t)
	if err := exec.Command(python, "-c", "import openai").Run(); err != nil {
		testenv.Require(t, "the openai Python package", "scripts/pyenv.sh")
	}
	const key = "sk-serve-test-51d2"
	const said = "Remember to buy milk, bread and eggs on the way home."
	srv := startServe(t, "--api-key", key)
	wav := speechWAV(t, said)
	out, err := exec.Command(python, "-c", openaiClient, srv.url, key, wav).CombinedOutput()
	if err != nil {
		t.Fatalf("openai client: %v\n%s", err, out)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(l, " ")
		lines[k] = v
	}
	t.Logf("openai client:\n%s", out)
	if wer := whisper.WordErrorRate(said, lines["TEXT"]); wer > 0.15 {
		t.Errorf("json text %q: WER %.2f", lines["TEXT"], wer)
	}
	if v := lines["VERBOSE"]; !strings.HasPrefix(v, "english ") || !strings.Contains(v, " True ") ||
		whisper.WordErrorRate(said, v[strings.Index(v, "True ")+5:]) > 0.15 {
		t.Errorf("verbose_json: %q", v)
	}
	if !strings.Contains(lines["SRT"], "00:00:00,000 --> 00:00:0") {
		t.Errorf("srt timing line %q", lines["SRT"])
	}
	if lines["MODELS"] != "whisper-base,whisper-1" {
		t.Errorf("models %q", lines["MODELS"])
	}
	if !strings.HasPrefix(lines["AUTH"], "401 incorrect API key") {
		t.Errorf("wrong key: %q, want AuthenticationError 401", lines["AUTH"])
	}

	// Our own client, through the CLI, against the same server.
	r := whisperkey(t, "transcribe", "--remote", srv.url, "--api-key", key, "--language", "en", wav)
	if r.code != 0 || whisper.WordErrorRate(said, r.stdout) > 0.15 {
		t.Errorf("transcribe --remote: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = whisperkey(t, "transcribe", "--remote", srv.url, wav)
	if r.code != 1 || !strings.Contains(r.stderr, "401") || !strings.Contains(r.stderr, "missing API key") {
		t.Errorf("transcribe --remote without the key: exit %d, stderr %q", r.code, r.stderr)
	}
	r = whisperkey(t, "transcribe", "--remote", "gpu-box:8765", wav)
	if r.code != 2 || !strings.Contains(r.stderr, "http:// or https://") {
		t.Errorf("transcribe --remote gpu-box:8765: exit %d, stderr %q", r.code, r.stderr)
	}

	srv.stop(t)
	logged := srv.stderr.String()
	if !strings.Contains(logged, "msg=stopped") || strings.Count(logged, "status=200") < 4 {
		t.Errorf("serve's log lacks the requests or the clean stop:\n%s", logged)
	}
	for _, secret := range []string{key, "milk", "bread", "eggs"} {
		if strings.Contains(strings.ToLower(logged), secret) {
			t.Errorf("serve logged %q:\n%s", secret, logged)
		}
	}
}
