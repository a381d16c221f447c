package testenv

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// Short skips a test that needs what (the engine, a model, a desktop, the
// built app) when it runs with -short: `make check` runs the fast unit tests
// alone that way.
func Short(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s; not run with -short (make check)", what)
	}
}

// Require stops the test because what is missing: in CI (CI=true or
// WHISPERKEY_TEST_DISALLOW_SKIP=1) that is a failure, since the project's own
// scripts install everything a test needs; elsewhere it is a skip saying how to get it.
func Require(t testing.TB, what, how string) {
	t.Helper()
	Short(t, what)
	if os.Getenv("CI") == "true" || os.Getenv("WHISPERKEY_TEST_DISALLOW_SKIP") == "1" {
		t.Fatalf("missing %s (install it with: %s)", what, how)
	}
	t.Skipf("missing %s; get it with: %s", what, how)
}

// Cache is the project's cache directory, paths.CacheDir: the scripts fill
// it with models, engines and speech.
func Cache() string {
	c, err := paths.CacheDir()
	if err != nil {
		panic(err) // no home folder: nothing the tests need can be there
	}
	return c
}

// Python returns the venv interpreter made by scripts/pyenv.sh, or stops the test.
func Python(t testing.TB) string {
	t.Helper()
	Short(t, "the python venv")
	p := filepath.Join(Cache(), "venv", "bin", "python")
	if _, err := os.Stat(p); err != nil {
		Require(t, "python venv "+p, "make deps (scripts/pyenv.sh)")
	}
	return p
}

// Model returns the cached real Whisper model directory by name ("base", "small"), or stops the test.
func Model(t testing.TB, name string) string {
	t.Helper()
	Short(t, "a Whisper model")
	dir := filepath.Join(Cache(), "models", "whisper-"+name)
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		Require(t, "model whisper-"+name, "make model (scripts/model.sh "+name+")")
	}
	return dir
}

// RepoRoot is the directory holding go.mod, found from the working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// EngineDir returns the CPU engine variant folder ($WHISPERKEY_ENGINE_DIR or
// build/engine/cpu made by `make engine`), or stops the test.
func EngineDir(t testing.TB) string {
	t.Helper()
	Short(t, "the engine library")
	dir := os.Getenv("WHISPERKEY_ENGINE_DIR")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "build", "engine", "cpu")
	}
	if _, err := os.Stat(dir); err != nil {
		Require(t, "engine library in "+dir, "make engine")
	}
	return dir
}

// FileWriter returns a function that writes b to name under dir and returns
// its path, for tests that make many input files; a failed write stops the
// test.
func FileWriter(t testing.TB, dir string) func(name string, b []byte) string {
	return func(name string, b []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// Speech synthesises text with espeak-ng and returns it as 16 kHz mono
// float32 samples (resampled by sox), or stops the test.
func Speech(t testing.TB, text string) []float32 {
	t.Helper()
	return SpeechWith(t, text)
}

// SpeechWith is Speech with espeak-ng options, such as a voice and a rate
// ("-v", "en-us", "-s", "190").
func SpeechWith(t testing.TB, text string, espeakArgs ...string) []float32 {
	t.Helper()
	Short(t, "espeak-ng speech")
	for _, tool := range []string{"espeak-ng", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			Require(t, tool, "make deps (apt-get install espeak-ng sox)")
		}
	}
	dir := t.TempDir()
	wav, raw := filepath.Join(dir, "s.wav"), filepath.Join(dir, "s.f32")
	args := append(append([]string{"-w", wav}, espeakArgs...), "--", text)
	if out, err := exec.Command("espeak-ng", args...).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	if out, err := exec.Command("sox", wav, "-r", "16000", "-c", "1", "-t", "f32", raw).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	return ReadF32(t, raw)
}

// ReadF32 reads a file of raw little-endian float32 samples, as sox writes
// with -t f32, or stops the test.
func ReadF32(t testing.TB, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f32s(b)
}

// f32s decodes raw little-endian float32 samples; a trailing partial sample
// is dropped.
func f32s(b []byte) []float32 {
	s := make([]float32, len(b)/4)
	for i := range s {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return s
}
