package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// writeExe writes an executable shell script.
func writeExe(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The engine rebuilds when ENGINE_BACKEND changes, and only then; a build
// made before the stamp existed is adopted when its BACKEND file agrees.
func TestMakefileEngineFollowsBackend(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Require(t, "make", "apt-get install make")
	}
	dir := t.TempDir()
	mk, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"Makefile": string(mk), "native/ct2engine/src/lib.rs": "", "native/ct2engine/Cargo.toml": "",
		"native/ct2engine/build.rs": "", "scripts/engine-link.sh": "", "scripts/engine-source.sh": "", "scripts/ct2-patch.sh": "",
		"native/ct2-patches/0001-a.patch": "a"}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A stand-in for the real build, which takes minutes: it records each run.
	writeExe(t, filepath.Join(dir, "scripts", "engine.sh"), `mkdir -p build/engine/cpu
echo x > build/engine/cpu/libct2engine.so
echo "$ENGINE_BACKEND" > build/engine/cpu/BACKEND
echo "$ENGINE_BACKEND" >> built.log
`)
	past := time.Now().Add(-time.Hour)
	for name := range files {
		if err := os.Chtimes(filepath.Join(dir, name), past, past); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		backend string
		want    string // built.log afterwards
	}{
		{"wheel", "wheel\n"},
		{"wheel", "wheel\n"},
		{"ruy", "wheel\nruy\n"},
		{"ruy", "wheel\nruy\n"},
		{"wheel", "wheel\nruy\nwheel\n"},
	}
	for i, s := range steps {
		cmd := exec.Command("make", "-s", "engine", "ENGINE_BACKEND="+s.backend)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("step %d: make engine: %v\n%s", i, err, out)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "built.log"))
		if string(got) != s.want {
			t.Fatalf("step %d (ENGINE_BACKEND=%s): builds %q, want %q", i, s.backend, got, s.want)
		}
		time.Sleep(20 * time.Millisecond) // distinct modification times
	}
	// An engine built before the stamp existed is not rebuilt for the same backend.
	if err := os.Remove(filepath.Join(dir, "build", "engine-backend")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "engine", "ENGINE_BACKEND=wheel")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make engine: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "built.log")); string(got) != "wheel\nruy\nwheel\n" {
		t.Fatalf("an up-to-date engine without a stamp was rebuilt: %q", got)
	}
	// A changed patch on CTranslate2 rebuilds the engine (scripts/engine.sh then
	// builds the library of the new patch set: scripts/ct2-patch.sh's key).
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "native/ct2-patches/0001-a.patch"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("make", "-s", "engine", "ENGINE_BACKEND=wheel")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make engine: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "built.log")); string(got) != "wheel\nruy\nwheel\nwheel\n" {
		t.Fatalf("a changed patch did not rebuild the engine: %q", got)
	}
}

// Every name in .PHONY has a rule, and the README describes `make model` as
// the Makefile runs it.
func TestMakefileTargetsAndReadme(t *testing.T) {
	root := testenv.RepoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	phony := regexp.MustCompile(`(?m)^\.PHONY:(.*)$`).FindSubmatch(mk)
	if phony == nil {
		t.Fatal("Makefile has no .PHONY line")
	}
	for _, name := range strings.Fields(string(phony[1])) {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `:`).Match(mk) {
			t.Errorf(".PHONY names %q, which has no rule", name)
		}
	}
	model := regexp.MustCompile(`(?m)^model:\n\tbash scripts/model.sh (.*)$`).FindSubmatch(mk)
	if model == nil {
		t.Fatal("Makefile has no model rule running scripts/model.sh")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile("(?m)^.*`make model`.*$").Find(readme)
	for _, m := range strings.Fields(string(model[1])) {
		if !strings.Contains(string(line), m) {
			t.Errorf("README's make model line %q does not mention %s, which make model fetches", line, m)
		}
	}
	if strings.Contains(string(line), "small") {
		t.Errorf("README's make model line %q mentions small, which make model does not fetch", line)
	}
}

// scripts/testenv.sh never stops a PulseAudio it did not start: here the
// display fails first, so no server of its own exists and the user's must
// be left alone.
func TestTestenvLeavesForeignPulseAudio(t *testing.T) {
	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "pulseaudio.calls")
	writeExe(t, filepath.Join(bin, "pulseaudio"), `echo "$@" >> `+calls+"\n")
	writeExe(t, filepath.Join(bin, "Xvfb"), "echo no screens >&2; exit 1\n")
	writeExe(t, filepath.Join(bin, "xdpyinfo"), "exit 1\n")
	cmd := exec.Command("bash", filepath.Join(testenv.RepoRoot(t), "scripts", "testenv.sh"), "true")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Xvfb did not start") {
		t.Fatalf("testenv.sh with a failing Xvfb: err %v, output %q", err, out)
	}
	if got, _ := os.ReadFile(calls); len(got) > 0 {
		t.Fatalf("testenv.sh ran pulseaudio %q though it never started its own", got)
	}
}

// Every fuzz target runs in CI: scripts/fuzz.sh lists each Fuzz function.
func TestFuzzTargetsRunInCI(t *testing.T) {
	root := testenv.RepoRoot(t)
	script, err := os.ReadFile(filepath.Join(root, "scripts", "fuzz.sh"))
	if err != nil {
		t.Fatal(err)
	}
	fuzz := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	n := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzz.FindAllSubmatch(b, -1) {
			n++
			pkg, _ := filepath.Rel(root, filepath.Dir(path))
			if !strings.Contains(string(script), "./"+filepath.ToSlash(pkg)+":"+string(m[1])+"\n") {
				t.Errorf("%s (%s) is not in scripts/fuzz.sh", m[1], pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 7 {
		t.Fatalf("found %d fuzz targets, want at least 7", n)
	}
}
