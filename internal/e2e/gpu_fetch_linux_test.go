//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/cublas/cublastest"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// nvidiaMachine makes this Linux machine look like one with an RTX 3060 and
// no cuBLAS: an nvidia-smi that answers with the recorded outputs in
// internal/gpu/testdata comes first on PATH, and an engine root holds the
// real cpu engine and a cuda folder whose engine is a stand-in (there is no
// GPU to run one). It returns the engine root and the environment for the
// commands.
func nvidiaMachine(t *testing.T, recording string) (root string, env []string) {
	t.Helper()
	if libs := gpu.FindCUBLAS(gpu.SystemSources().CUDALibDirs); len(libs) > 0 {
		t.Skipf("this machine has cuBLAS (%s): the offer to fetch it cannot show", libs[0].Path)
	}
	rec := filepath.Join(testenv.RepoRoot(t), "internal", "gpu", "testdata", "nvidia-smi", recording)
	bin := t.TempDir()
	script := "#!/bin/sh\ncase \"$*\" in\n'') exec cat " + rec + ".txt ;;\n*pci.bus_id*) [ -f " + rec + ".bus ] && exec cat " + rec + ".bus; echo 'Field \"pci.bus_id\" is not a valid field to query.'; exit 2 ;;\n*) exec cat " + rec + ".csv ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	root = t.TempDir()
	if err := os.Symlink(testenv.EngineDir(t), filepath.Join(root, gpu.VariantCPU)); err != nil {
		t.Fatal(err)
	}
	cuda := filepath.Join(root, gpu.VariantCUDA)
	if err := os.MkdirAll(cuda, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cuda, "libct2engine.so"), []byte("a stand-in: no GPU here to run the real one"), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+root, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return root, env
}

// run runs the real binary with env.
func runWith(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = env
	return runCmd(t, cmd)
}

// On an NVIDIA machine without cuBLAS, doctor offers the download; `gpu
// fetch` refuses a file with the wrong checksum, keeps a truncated
// download, resumes it with progress, checks it and installs cuBLAS where
// detection then finds it, and doctor goes on to start the cuda engine;
// `gpu import` takes the wheel copied in by hand and refuses another file.
// The wheel is a stand-in with the real wheel's layout, served on loopback,
// and its pin comes from WHISPERKEY_CUBLAS_PIN.
func TestGPUFetchCUBLAS(t *testing.T) {
	model := testenv.Model(t, "tiny.en")
	isolatedCache(t, "")
	root, env := nvidiaMachine(t, "rtx3060")
	cuda := filepath.Join(root, gpu.VariantCUDA)

	w := cublastest.NewWheel(t, "linux")
	const file = "nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl"
	srv := cublastest.Serve(t, file, w.Data)
	pin := w.Pin
	pin.URL = srv.FileURL(file)
	pinFile := filepath.Join(t.TempDir(), "pin.json")
	b, _ := json.Marshal(pin)
	if err := os.WriteFile(pinFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(env, "WHISPERKEY_CUBLAS_PIN="+pinFile)

	r := runWith(t, env, "doctor", "--model", model)
	for _, want := range []string{
		"✘ cuBLAS for CUDA 12 found — fix: Run `whisperkey gpu fetch` or pick “Download cuBLAS for the GPU” in the tray's Device menu",
		"Decision: Detected NVIDIA GeForce RTX 3060, but cuBLAS for CUDA 12 is not installed — using CPU mode",
		"NVIDIA GeForce RTX 3060  551.86 · 12.4 · 12.0 GB · PCI 0000:01:00.0", // the address from nvidia-smi
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("doctor does not say %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	r = runWith(t, env, "doctor", "--json", "--model", model)
	var rep struct {
		Decision gpu.Decision `json:"decision"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Decision.FetchCUBLAS != 12 {
		t.Fatalf("doctor --json: fetch_cublas %d (%v), want 12:\n%s", rep.Decision.FetchCUBLAS, err, r.stdout)
	}

	libs := func() []string {
		var got []string
		for name := range w.Libs {
			if _, err := os.Stat(filepath.Join(cuda, name)); err == nil {
				got = append(got, name)
			}
		}
		return got
	}

	bad := append([]byte(nil), w.Data...)
	bad[len(bad)/2] ^= 0xff
	srv.Set(bad, 0)
	r = runWith(t, env, "gpu", "fetch")
	if r.code == 0 || !strings.Contains(r.stderr, "does not match the SHA-256 WhisperKey pins") || len(libs()) > 0 {
		t.Fatalf("a wrong checksum: exit %d, libraries %q:\n%s", r.code, libs(), r.stderr)
	}

	srv.Set(w.Data, 100) // each answer stops after 100 bytes
	r = runWith(t, env, "gpu", "fetch")
	part := filepath.Join(cuda, ".cublas-download", file+".part")
	st, err := os.Stat(part)
	if r.code == 0 || !strings.Contains(r.stderr, "run it again to resume") || err != nil || st.Size() == 0 || len(libs()) > 0 {
		t.Fatalf("a truncated download: exit %d, part %v %v, libraries %q:\n%s", r.code, st, err, libs(), r.stderr)
	}

	srv.Set(w.Data, 0)
	before := len(srv.Ranges())
	r = runWith(t, env, "gpu", "fetch")
	if r.code != 0 || len(libs()) != 2 {
		t.Fatalf("gpu fetch: exit %d, libraries %q:\n%s\n%s", r.code, libs(), r.stdout, r.stderr)
	}
	if got := srv.Ranges()[before:]; len(got) != 1 || got[0] != "bytes="+strconv.FormatInt(st.Size(), 10)+"-" {
		t.Fatalf("the download was not resumed at byte %d: requests with Range %q", st.Size(), got)
	}
	if !finalRate.MatchString(r.stderr) || !strings.Contains(r.stderr, "cuBLAS 12.4.5.8: ") {
		t.Fatalf("no final progress line with a rate:\n%q", r.stderr)
	}
	if !strings.Contains(r.stdout, "cuBLAS 12.4.5.8 installed in "+cuda) {
		t.Fatalf("gpu fetch says %q", r.stdout)
	}
	t.Logf("gpu fetch: %s", strings.TrimSpace(r.stderr[strings.LastIndex(r.stderr, "\r")+1:]))

	r = runWith(t, env, "doctor", "--model", model)
	if !strings.Contains(r.stdout, "✔ cuBLAS for CUDA 12 found") ||
		!strings.Contains(r.stdout, "Decision: Detected NVIDIA GeForce RTX 3060, but the GPU engine failed to start") {
		t.Fatalf("after the fetch doctor should find cuBLAS and start the cuda engine (a stand-in here, so it fails):\n%s", r.stdout)
	}

	// Offline: the same wheel copied in by hand, and a file that is not it.
	for name := range w.Libs {
		if err := os.Remove(filepath.Join(cuda, name)); err != nil {
			t.Fatal(err)
		}
	}
	forged := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(forged, cublastest.NewWheel(t, "windows").Data, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, env, "gpu", "import", forged)
	if r.code != 2 || !strings.Contains(r.stderr, "has no libcublas.so.12") || len(libs()) > 0 {
		t.Fatalf("gpu import of another wheel: exit %d, libraries %q:\n%s", r.code, libs(), r.stderr)
	}
	wheel := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(wheel, w.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, env, "gpu", "import", wheel)
	if r.code != 0 || len(libs()) != 2 || !strings.Contains(r.stdout, "installed in "+cuda) {
		t.Fatalf("gpu import: exit %d, libraries %q:\n%s\n%s", r.code, libs(), r.stdout, r.stderr)
	}
}
