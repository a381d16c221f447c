package backend_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestMain doubles as the engine worker, which the client starts by
// re-executing this test binary.
func TestMain(m *testing.M) {
	testenv.ServeWorkerIfAsked()
	os.Exit(m.Run())
}

// rtx3060 is a Linux machine with an RTX 3060, driver 551.86 (CUDA 12.4) and
// cuBLAS 12, answered from the recorded nvidia-smi outputs in internal/gpu.
func rtx3060(t *testing.T) *gpu.Sources {
	t.Helper()
	rec := filepath.Join(testenv.RepoRoot(t), "internal", "gpu", "testdata", "nvidia-smi")
	cublas := t.TempDir()
	if err := os.WriteFile(filepath.Join(cublas, "libcublas.so.12"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return &gpu.Sources{
		GOOS: "linux",
		Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
			if name != "nvidia-smi" {
				return nil, &exec.Error{Name: name, Err: exec.ErrNotFound}
			}
			if len(args) == 0 {
				return os.ReadFile(filepath.Join(rec, "rtx3060.txt"))
			}
			return os.ReadFile(filepath.Join(rec, "rtx3060.csv"))
		},
		CUDALibDirs: []string{cublas},
	}
}

// engineRoot makes an install layout: the real cpu variant, and a cuda
// folder in the state given.
func engineRoot(t *testing.T, cuda string) string {
	root := t.TempDir()
	if err := os.Symlink(testenv.EngineDir(t), filepath.Join(root, "cpu")); err != nil {
		t.Fatal(err)
	}
	switch cuda {
	case "missing":
	case "broken":
		dir := filepath.Join(root, "cuda")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// A damaged download: the file is there but is not a library.
		if err := os.WriteFile(filepath.Join(dir, engine.LibraryName()), []byte("<html>502 Bad Gateway</html>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestGPUUnusableFallsBackToCPU(t *testing.T) {
	model := testenv.Model(t, "base")
	const said = "Remember to buy milk, bread and eggs on the way home."
	speech := testenv.Speech(t, said)
	cases := []struct {
		name, cuda, want string
	}{
		{"variant folder missing", "missing",
			"Detected NVIDIA GeForce RTX 3060, but the cuda engine files are missing — using CPU mode. Setup: docs/gpu-setup.md#engine-files-are-missing"},
		{"library fails to load", "broken",
			"Detected NVIDIA GeForce RTX 3060, but the GPU engine failed to start (load engine library"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opt := backend.Options{
				EngineRoot: engineRoot(t, tc.cuda), StateDir: t.TempDir(), Device: "auto", Sources: rtx3060(t),
				Engine: testenv.WorkerOptions(),
			}
			l, err := backend.Open(context.Background(), model, opt, testlog.New(t, slog.LevelWarn))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if !strings.HasPrefix(l.Message, tc.want) || l.Spec.Device != "cpu" || l.Decision.Variant != gpu.VariantCPU {
				t.Fatalf("message %q on %s, want %q on cpu", l.Message, l.Spec.Device, tc.want)
			}
			if tc.cuda == "broken" && !strings.HasSuffix(l.Message, "— using CPU mode. Setup: docs/gpu-setup.md#the-gpu-engine-failed-to-start") {
				t.Fatalf("message %q does not end with the CPU mode and guide link", l.Message)
			}
			res, err := l.Transcribe(context.Background(), speech, whisper.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if wer := whisper.WordErrorRate(said, res.Text); wer > 0.15 {
				t.Fatalf("dictation after fallback: WER %.2f %q", wer, res.Text)
			}
		})
	}
}

// A GPU found to compute wrong results is remembered: the next start goes
// straight to the CPU and says why, without loading the GPU engine.
func TestCachedBadVerdictSkipsGPU(t *testing.T) {
	model := testenv.Model(t, "base")
	opt := backend.Options{
		EngineRoot: engineRoot(t, "broken"), StateDir: t.TempDir(), Device: "auto", Sources: rtx3060(t),
		Engine: testenv.WorkerOptions(),
	}
	log := testlog.New(t, slog.LevelWarn)
	d := backend.Decide(backend.Detect(context.Background(), opt, log), opt)
	if d.Variant != gpu.VariantCUDA {
		t.Fatalf("decision %+v, want cuda", d)
	}
	cache := gpu.OpenVerifyCache(opt.StateDir)
	if err := cache.Put(gpu.KeyFor(d, model), gpu.Verdict{Wrong: true, Reason: "its text differs from the CPU's"}); err != nil {
		t.Fatal(err)
	}
	l, err := backend.Open(context.Background(), model, opt, log)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := "Detected NVIDIA GeForce RTX 3060, but the GPU computes wrong results (its text differs from the CPU's) — using CPU mode. Setup: docs/gpu-setup.md#the-gpu-computes-wrong-results"
	if l.Message != want {
		t.Fatalf("message %q\nwant    %q", l.Message, want)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// With model auto the GPUs are probed once: ResolveModel hands its report on,
// and loading with it (Options.Report) probes nothing again.
func TestAutoProbesTheGPUsOnce(t *testing.T) {
	src := rtx3060(t)
	probes := 0
	run := src.Run
	src.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
		probes++
		return run(ctx, name, args...)
	}
	cache, err := models.New(models.Options{Dir: t.TempDir()}, testlog.Discard())
	if err != nil {
		t.Fatal(err)
	}
	opt := backend.Options{Sources: src}
	picked, err := backend.ResolveModel(context.Background(), choice.ModelAuto, cache, opt, testlog.Discard())
	if !errors.Is(err, backend.ErrModelMissing) || !picked.Auto || picked.Report == nil {
		t.Fatalf("ResolveModel(auto) on an empty cache = %+v, %v; want a missing model and the report", picked, err)
	}
	if probes == 0 || len(picked.Report.GPUs) != 1 {
		t.Fatalf("the report has %d GPUs after %d probes, want the RTX 3060", len(picked.Report.GPUs), probes)
	}
	before := probes
	opt.Report = picked.Report
	if r := backend.Detect(context.Background(), opt, testlog.Discard()); probes != before || len(r.GPUs) != 1 {
		t.Fatalf("Detect with the report probed %d more times (GPUs %d)", probes-before, len(r.GPUs))
	}
}

// rx5700xt is a report of a Linux machine with an RX 5700 XT and a whole
// ROCm 6.2.4 (comgr, hipBLAS, rocBLAS with the gfx1010 kernels): the
// rocm-rdna1 variant is chosen.
func rx5700xt(t *testing.T) *gpu.Report {
	return &gpu.Report{GOOS: "linux",
		GPUs: []gpu.GPU{{Vendor: gpu.AMD, Name: "AMD Radeon RX 5700 XT", PCIDevice: 0x731f, Arch: "gfx1010", Family: "RDNA 1", Driver: "6.8.0", Source: "sysfs"}},
		ROCm: []gpu.ROCmInstall{{Version: "6.2.4", Dir: t.TempDir(), LibDir: t.TempDir(), HIPMajor: 6, Comgr: true, ROCBLAS: true, HIPBLAS: true, Kernels: []string{"gfx1010"}}}}
}

// The gfx1010 first run through the real engine worker, whose rocm-rdna1
// library does not load (this machine has no GPU): the int8 check cannot
// load, nor can float16, so the engine is broken rather than int8, and
// nothing is remembered against int8; the CPU serves, and a remembered int8
// failure is kept as it was.
func TestGfx1010Int8CheckOnABrokenEngine(t *testing.T) {
	model := testenv.Model(t, "base")
	sample, err := backend.SelfTestSample()
	if err != nil {
		t.Fatal(err)
	}
	root := engineRoot(t, "missing")
	dir := filepath.Join(root, gpu.VariantRDNA1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, engine.LibraryName()), []byte("<html>502 Bad Gateway</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := gpu.Verdict{Reason: "did not load: hipblasGemmEx failed", ComputeType: gpu.Int8Type}
	for _, remembered := range []bool{false, true} {
		t.Run(fmt.Sprintf("int8 failure remembered %v", remembered), func(t *testing.T) {
			opt := backend.Options{EngineRoot: root, StateDir: t.TempDir(), Device: "auto", Report: rx5700xt(t),
				Sample: sample, Engine: testenv.WorkerOptions()}
			log := testlog.New(t, slog.LevelInfo)
			d := backend.Decide(*opt.Report, opt)
			if d.Variant != gpu.VariantRDNA1 {
				t.Fatalf("decision %+v, want rocm-rdna1", d)
			}
			cache := gpu.OpenVerifyCache(opt.StateDir)
			if remembered {
				if err := cache.Put(gpu.Int8Key(d, model), failed); err != nil {
					t.Fatal(err)
				}
			}
			l, err := backend.Open(context.Background(), model, opt, log)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			const want = "Detected AMD RX 5700 XT (RDNA 1), but the GPU engine failed to start (load engine library"
			if !strings.HasPrefix(l.Message, want) || l.Spec.Device != "cpu" {
				t.Fatalf("message %q on %s, want %q… on cpu", l.Message, l.Spec.Device, want)
			}
			v, ok, err := cache.Get(gpu.Int8Key(d, model))
			if err != nil || ok != remembered || (remembered && v != failed) {
				t.Fatalf("int8 verdict after the run: %+v found %v (%v); want found %v", v, ok, err, remembered)
			}
			res, err := l.Transcribe(context.Background(), sample, whisper.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if wer := whisper.WordErrorRate(backend.SelfTestText, res.Text); wer > 0.25 {
				t.Fatalf("dictation on the CPU: WER %.2f %q", wer, res.Text)
			}
		})
	}
}
