package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

var build struct {
	once sync.Once
	exe  string
	err  error
}

// binary builds the real whisperkey once per test run.
func binary(t testing.TB) string {
	t.Helper()
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
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func speechWAV(t testing.TB, text string) string {
	t.Helper()
	testenv.Speech(t, "check") // espeak-ng and sox present
	wav := filepath.Join(t.TempDir(), "speech.wav")
	if out, err := exec.Command("espeak-ng", "-w", wav, text).CombinedOutput(); err != nil {
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
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
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

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing model dir", []string{"transcribe", good, "--model", filepath.Join(dir, "nope")}, "does not exist"},
		{"model dir without model.bin", []string{"transcribe", good, "--model", noBin}, "model.bin"},
		{"truncated model.bin", []string{"transcribe", good, "--model", truncated}, "truncated"},
		{"text file as WAV", []string{"transcribe", text, "--model", model}, "not a WAV file"},
		{"0-byte WAV", []string{"transcribe", empty, "--model", model}, "empty"},
		{"missing WAV", []string{"transcribe", filepath.Join(dir, "gone.wav"), "--model", model}, "gone.wav"},
		{"no file", []string{"transcribe", "--model", model}, "at least one WAV file"},
		{"bad beam size", []string{"transcribe", good, "--beam-size", "0"}, "--beam-size"},
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

func TestDoctorJSONMatchesSchema(t *testing.T) {
	model := testenv.Model(t, "base")
	r := whisperkey(t, "doctor", "--json", "--model", model)
	if r.code != 0 {
		t.Fatalf("doctor exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	schemaPath := filepath.Join(testenv.RepoRoot(t), "docs", "doctor.schema.json")
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatalf("doctor output is not JSON: %v", err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("doctor --json does not match docs/doctor.schema.json: %v\n%s", err, r.stdout)
	}
	var rep struct {
		Message  string
		SelfTest struct{ OK bool } `json:"self_test"`
	}
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	if rep.Message != "No supported GPU found — using CPU mode" || !rep.SelfTest.OK {
		t.Fatalf("message %q, self-test ok %v", rep.Message, rep.SelfTest.OK)
	}
}
