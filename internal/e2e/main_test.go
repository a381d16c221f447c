package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/envvars"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestMain runs the tests from the repository's root, as they ran when they
// lived there: they read its scripts, docs and build folder by relative path.
// A copy of this binary started outside the repository (the PTT stranger)
// stays where it was started.
func TestMain(m *testing.M) {
	if dir, err := os.Getwd(); err == nil {
		for ; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				if err := os.Chdir(dir); err != nil {
					fmt.Fprintln(os.Stderr, "e2e:", err)
					os.Exit(2)
				}
				break
			}
		}
	}
	os.Exit(m.Run())
}

var build struct {
	once sync.Once
	exe  string
	err  error
}

// binary builds the real whisperkey once per test run.
func binary(t testing.TB) string {
	t.Helper()
	testenv.Short(t, "the built app")
	build.once.Do(func() {
		build.exe = filepath.Join(testenv.RepoRoot(t), "build", "whisperkey-test")
		if out, err := exec.Command("go", "build", "-o", build.exe, ".").CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.exe
}

type result struct {
	stdout, stderr string
	code           int
}

func whisperkey(t testing.TB, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), binary(t), args...)
	cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)))
	return runCmd(t, cmd)
}

// runCmd runs cmd to its end and returns what it printed and its exit code;
// a command that cannot start fails the test.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := exitStatus(t, cmd.Run())
	return result{out.String(), errb.String(), code}
}

// exitStatus is the exit code of a command that ended with err; an error
// other than the command's own exit (it did not start) fails the test.
func exitStatus(t testing.TB, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// speechWAV is espeak-ng's text, spoken with its options voice (none: its
// default voice), as a WAV file.
func speechWAV(t testing.TB, text string, voice ...string) string {
	t.Helper()
	testenv.Speech(t, "check") // espeak-ng and sox present
	wav := filepath.Join(t.TempDir(), "speech.wav")
	args := append(append([]string{"-w", wav}, voice...), "--", text)
	if out, err := exec.Command("espeak-ng", args...).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	return wav
}

func TestTranscribeCLI(t *testing.T) {
	model := testenv.Model(t, "base")
	const said = "Remember to buy milk, bread and eggs on the way home."
	wav := speechWAV(t, said)
	r := whisperkey(t, "transcribe", wav, "--model", model, "--beam-size", "5")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if wer := whisper.WordErrorRate(said, r.stdout); wer > 0.15 {
		t.Fatalf("WER %.2f: %q", wer, r.stdout)
	}
	r = whisperkey(t, "transcribe", "--json", "--language", "en", wav, "--model", model)
	var j struct {
		Text     string `json:"text"`
		Language string `json:"language"`
		Segments []struct {
			Start, End float64
			Text       string
		} `json:"segments"`
		Device string  `json:"device"`
		RTF    float64 `json:"real_time_factor"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.stdout)
	}
	if j.Language != "en" || len(j.Segments) == 0 || j.Device != "cpu" || j.RTF <= 0 || whisper.WordErrorRate(said, j.Text) > 0.15 {
		t.Fatalf("unexpected JSON: %+v", j)
	}
}

func TestTranscribeBadInputs(t *testing.T) {
	model := testenv.Model(t, "base")
	dir := t.TempDir()
	write := testenv.FileWriter(t, dir)
	good := speechWAV(t, "hello there")
	text := write("notes.wav", []byte("these are my notes, not audio\n"))
	empty := write("empty.wav", nil)
	noBin := filepath.Join(dir, "nobin")
	truncated := filepath.Join(dir, "truncated")
	for _, d := range []string{noBin, truncated} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"config.json", "vocabulary.json", "tokenizer.json"} {
			b, err := os.ReadFile(filepath.Join(model, f))
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(filepath.Base(d), f), b)
		}
	}
	f, err := os.Open(filepath.Join(model, "model.bin"))
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1<<20)
	if _, err := f.Read(head); err != nil {
		t.Fatal(err)
	}
	f.Close()
	write("truncated/model.bin", head)
	nan := write("nan.wav", audiotest.FloatWAV([]float32{float32(math.NaN()), float32(math.Inf(1))}, 16000, 1))
	// A model whose decoder has 0 attention heads: CTranslate2 would divide by it.
	noHeads := filepath.Join(dir, "noheads")
	if err := ct2bintest.GenerateTiny(noHeads, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(filepath.Join(noHeads, "model.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// name, then rank (u8), dtype (u8), byte count (u32), then the int16 value.
	at := bytes.Index(bin, []byte("decoder/num_heads\x00"))
	if at < 0 {
		t.Fatal("tiny model has no decoder/num_heads")
	}
	at += len("decoder/num_heads\x00") + 6
	bin[at], bin[at+1] = 0, 0
	write("noheads/model.bin", bin)

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing model dir", []string{"transcribe", good, "--model", filepath.Join(dir, "nope")}, "does not exist"},
		{"model dir without model.bin", []string{"transcribe", good, "--model", noBin}, "model.bin"},
		{"truncated model.bin", []string{"transcribe", good, "--model", truncated}, "truncated"},
		{"model.bin with 0 attention heads", []string{"transcribe", good, "--model", noHeads}, "decoder/num_heads is 0, but a Whisper model needs at least one attention head"},
		{"text file as WAV", []string{"transcribe", text, "--model", model}, "is not audio"},
		{"float WAV of NaN and infinity", []string{"transcribe", nan, "--model", model}, "float samples that are not a number (NaN)"},
		{"0-byte WAV", []string{"transcribe", empty, "--model", model}, "empty"},
		{"missing WAV", []string{"transcribe", filepath.Join(dir, "gone.wav"), "--model", model}, "gone.wav"},
		{"no file", []string{"transcribe", "--model", model}, "at least one audio file"},
		{"bad beam size", []string{"transcribe", good, "--beam-size", "0"}, "--beam-size"},
		{"huge beam size", []string{"transcribe", good, "--model", model, "--beam-size", "100000"}, "--beam-size: beam size 100000 is out of range: use 1 to 16"},
		{"negative threads", []string{"transcribe", good, "--model", model, "--threads", "-5"}, "--threads: threads -5 is out of range"},
		{"device gpu", []string{"transcribe", good, "--model", model, "--device", "gpu"}, `--device: device "gpu" is not one of auto, cpu, cuda, rocm`},
		{"empty device", []string{"transcribe", good, "--model", model, "--device", ""}, `device "" is not one of auto, cpu, cuda, rocm`},
		{"doctor with a bogus device", []string{"doctor", "--model", model, "--device", "bogus"}, `device "bogus" is not one of auto, cpu, cuda, rocm`},
		{"unknown language", []string{"transcribe", good, "--model", model, "--language", "xx"}, "language"},
		{"unknown command", []string{"transcibe"}, "unknown command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := whisperkey(t, tc.args...)
			if r.code == 0 {
				t.Fatalf("exit 0, want failure; stdout %q", r.stdout)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, tc.want) || strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("stderr %q, want one line containing %q", r.stderr, tc.want)
			}
			t.Logf("exit %d: %s", r.code, last)
		})
	}
}

// checkDoctorSchema checks stdout, what doctor --json printed, against
// docs/doctor.schema.json: output that is not JSON stops the test, with the
// command's stderr, and output of another shape fails it.
func checkDoctorSchema(t testing.TB, stdout, stderr string) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join(testenv.RepoRoot(t), "docs", "doctor.schema.json"))
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, stdout, stderr)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("doctor --json does not match docs/doctor.schema.json: %v\n%s", err, stdout)
	}
}

func TestDoctorJSONMatchesSchema(t *testing.T) {
	model := testenv.Model(t, "base")
	t.Setenv("WHISPERKEY_MODLE", "small") // a misspelt key, which nothing reads
	r := whisperkey(t, "doctor", "--json", "--model", model)
	if r.code != 0 {
		t.Fatalf("doctor exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	checkDoctorSchema(t, r.stdout, r.stderr)
	var rep struct {
		Message  string
		SelfTest struct {
			OK          bool
			ComputeType string `json:"compute_type"`
		} `json:"self_test"`
		Environment []string
		Engine      struct {
			Device, Window string
			ComputeType    string `json:"compute_type"`
		}
		Desktop struct {
			Type   string
			Routes []struct {
				Name string
				Used bool
			}
		}
		Microphone struct {
			Device, Kind, Backend string
			Held                  bool `json:"held_open"`
		}
	}
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	// The test desktop's microphone is the monitor of its null sink, and the
	// default config holds no microphone between dictations.
	if m := rep.Microphone; !strings.Contains(m.Device, "VirtualMic") || m.Kind != "monitor of an output" || m.Backend != "PulseAudio" || m.Held {
		t.Errorf("doctor's microphone %+v, want the monitor of VirtualMic on PulseAudio, not held open", m)
	}
	if !strings.Contains(whisperkey(t, "doctor", "--model", model).stdout, "Microphone: Monitor of VirtualMic (monitor of an output, PulseAudio), open only while recording") {
		t.Errorf("doctor's text report lacks the Microphone line")
	}
	// The test desktop is Xvfb: an X11 session whose hotkey is the X grab,
	// with `whisperkey ptt` beside it.
	used := func(name string) bool {
		return slices.ContainsFunc(rep.Desktop.Routes, func(r struct {
			Name string
			Used bool
		}) bool {
			return r.Name == name && r.Used
		})
	}
	if os.Getenv("WAYLAND_DISPLAY") == "" && (rep.Desktop.Type != "x11" || !used("x11-grab") || !used("ptt-command")) {
		t.Errorf("doctor's desktop session %+v, want x11 with the X grab and the ptt command used", rep.Desktop)
	}
	// The window decoding.short_window (auto) gives this device.
	if want := map[string]string{"cpu": "short", "cuda": "full"}[rep.Engine.Device]; rep.Engine.Window != want {
		t.Errorf("doctor says the window on %s is %q, want %q", rep.Engine.Device, rep.Engine.Window, want)
	}
	// doctor lists the WhisperKey variables set; the test sets this one.
	if !slices.Contains(rep.Environment, "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t))) {
		t.Errorf("doctor's environment %q lacks WHISPERKEY_ENGINE_ROOT", rep.Environment)
	}
	if !slices.Contains(rep.Environment, "WHISPERKEY_MODLE=small "+envvars.NotRead) {
		t.Errorf("doctor's environment %q does not mark WHISPERKEY_MODLE as not read", rep.Environment)
	}
	// The self-test says which compute type it ran: the engine's.
	if rep.SelfTest.ComputeType == "" || rep.SelfTest.ComputeType != rep.Engine.ComputeType {
		t.Errorf("self-test ran with compute type %q, the engine with %q", rep.SelfTest.ComputeType, rep.Engine.ComputeType)
	}
	if !gpuMessageMatches(t, rep.Message) || !rep.SelfTest.OK {
		t.Fatalf("message %q, self-test ok %v", rep.Message, rep.SelfTest.OK)
	}
}

// The doctor reports recorded on real GPU machines (testdata/doctor) still
// match the schema, and say there what the machine did.
func TestRecordedDoctorReportsMatchSchema(t *testing.T) {
	tests := []struct{ file, message, engine string }{
		{"h200-cuda13.json", "Detected NVIDIA H200 — using GPU acceleration (CUDA 13.0)", "cuda"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("internal", "e2e", "testdata", "doctor", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			checkDoctorSchema(t, string(b), "")
			var rep struct {
				Message  string
				Engine   struct{ Device string }
				SelfTest struct{ OK bool } `json:"self_test"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Message != tt.message || rep.Engine.Device != tt.engine || !rep.SelfTest.OK {
				t.Errorf("message %q on %q (self-test ok %v), want %q on %q", rep.Message, rep.Engine.Device, rep.SelfTest.OK, tt.message, tt.engine)
			}
		})
	}
}

// gpuMessageMatches reports whether msg is what the app and doctor should say
// about the GPU on this machine, derived from the same detection they run:
// the CPU decision's exact sentence, or for a usable GPU "Detected <GPU>…"
// (its verification may still send it to the CPU with a reason).
func gpuMessageMatches(t testing.TB, msg string) bool {
	t.Helper()
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t))}
	d := backend.Decide(backend.Detect(context.Background(), opt, slog.New(slog.DiscardHandler)), opt)
	if d.Device == "cpu" {
		return strings.Contains(msg, d.Message)
	}
	return strings.Contains(msg, "Detected "+d.GPU.Label())
}

// An explicit --device cuda that cannot be met says so on stderr, and --json
// carries it; on a machine where CUDA is usable the request is met instead.
func TestTranscribeUnmetDevice(t *testing.T) {
	model := testenv.Model(t, "base")
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cuda"}
	if d := backend.Decide(backend.Detect(context.Background(), opt, slog.New(slog.DiscardHandler)), opt); d.Device != "cpu" {
		t.Skipf("this machine can run device cuda (%s); the unmet request cannot happen here", d.Message)
	}
	r := whisperkey(t, "transcribe", speechWAV(t, "hello there"), "--model", model, "--device", "cuda", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	const want = "device cuda was requested but cannot be used"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q lacks %q", r.stderr, want)
	}
	var j struct {
		Device      string `json:"device"`
		DeviceUnmet string `json:"device_unmet"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.stdout)
	}
	if j.Device != "cpu" || !strings.Contains(j.DeviceUnmet, want) {
		t.Fatalf("JSON device %q, device_unmet %q", j.Device, j.DeviceUnmet)
	}
}
