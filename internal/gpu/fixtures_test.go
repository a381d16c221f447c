package gpu

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// machine is one recorded computer: which probe outputs and install layouts it has.
type machine struct {
	goos        string
	dxgi, wmi   string // testdata/dxgi, testdata/wmi file
	sysfs       string // testdata/sysfs txtar, built into a temp root
	smi         string // testdata/nvidia-smi base name: .txt banner, .csv query, .err query failure
	rocminfo    string // testdata/rocminfo file
	rocm        string // testdata/layouts txtar holding ROCm installs
	cuda        string // testdata/layouts txtar holding CUDA toolkits
	hipPath     string // HIP_PATH relative to the ROCm root, as the installer writes it
	notInstalld []string
	cudaBuild   *CUDABuild // the cuda variant's build files; nil: the release build
	// hipOrder is what the HIP runtime answers on Windows (hipDeviceGetPCIBusId
	// for each device); nil: the runtime cannot be asked.
	hipOrder []string
}

// sources turns a machine into Detect's inputs, with every file under root.
func (m machine) sources(t *testing.T, root string) Sources {
	t.Helper()
	src := Sources{GOOS: m.goos, Run: m.run(t)}
	if m.hipOrder != nil {
		src.HIPDevices = func(_ context.Context, libDir string) ([]string, error) {
			if _, err := os.Stat(libDir); err != nil {
				t.Errorf("HIP runtime asked in %s: %v", libDir, err)
			}
			return m.hipOrder, nil
		}
	}
	switch {
	case m.dxgi != "":
		src.Adapters = func(context.Context) ([]Adapter, error) { return readDXGI(t, m.dxgi), nil }
	case m.wmi != "":
		src.Adapters = func(context.Context) ([]Adapter, error) { return ParseWMI(readFixture(t, "wmi/"+m.wmi)) }
	}
	if m.sysfs != "" {
		src.SysRoot = filepath.Join(root, "sysroot")
		buildTree(t, "sysfs/"+m.sysfs, src.SysRoot)
	}
	if m.rocm != "" {
		rocmRoot := filepath.Join(root, "rocm")
		buildTree(t, "layouts/"+m.rocm+".txtar", rocmRoot)
		src.ROCmRoots = []string{rocmRoot}
		if m.hipPath != "" {
			src.HIPPath = filepath.Join(rocmRoot, m.hipPath) + string(filepath.Separator)
		}
	}
	if m.cuda != "" {
		cudaRoot := filepath.Join(root, "cuda")
		for _, f := range buildTree(t, "layouts/"+m.cuda+".txtar", cudaRoot) {
			src.CUDALibDirs = append(src.CUDALibDirs, filepath.Dir(f))
		}
	}
	return src
}

// run answers probe commands from the recorded outputs; a tool with no
// recording is not installed, failing as exec would.
func (m machine) run(t *testing.T) func(context.Context, string, ...string) ([]byte, error) {
	return func(_ context.Context, name string, args ...string) ([]byte, error) {
		notFound := &exec.Error{Name: name, Err: exec.ErrNotFound}
		switch {
		case name == "nvidia-smi" && m.smi == "":
			return nil, notFound
		case name == "nvidia-smi" && len(args) == 0:
			return readFixture(t, "nvidia-smi/"+m.smi+".txt"), nil
		case name == "nvidia-smi" && strings.Contains(args[0], "pci.bus_id"):
			// Recorded from the banner's Bus-Id column, in the query's form.
			if b, err := os.ReadFile(filepath.Join("testdata/nvidia-smi", m.smi+".bus")); err == nil {
				return b, nil
			}
			return nil, errors.New(`exit status 2: Field "pci.bus_id" is not a valid field to query.`)
		case name == "nvidia-smi" && strings.Contains(args[0], "compute_cap"):
			if b, err := os.ReadFile(filepath.Join("testdata/nvidia-smi", m.smi+".err")); err == nil {
				return b, errors.New("exit status 2: " + strings.TrimSpace(string(b)))
			}
			return readFixture(t, "nvidia-smi/"+m.smi+".csv"), nil
		case name == "nvidia-smi":
			return readFixture(t, "nvidia-smi/"+m.smi+".csv"), nil
		case name == "rocminfo" && m.rocminfo != "":
			return readFixture(t, "rocminfo/"+m.rocminfo), nil
		}
		return nil, notFound
	}
}

func (m machine) engines() Engines { return Engines{Have: m.have, CUDA: m.cudaBuild} }

func (m machine) have(variant string) bool {
	for _, v := range m.notInstalld {
		if v == variant {
			return false
		}
	}
	return true
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// buildTree writes a txtar fixture ("-- path --" then the file's content)
// under root and returns the files' paths.
func buildTree(t *testing.T, name, root string) []string {
	t.Helper()
	var files []string
	var cur string
	var body strings.Builder
	flush := func() {
		if cur == "" {
			return
		}
		p := filepath.Join(root, filepath.FromSlash(cur))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, line := range strings.SplitAfter(string(readFixture(t, name)), "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), "-- "); ok && strings.HasSuffix(n, " --") {
			flush()
			cur = strings.TrimSuffix(n, " --")
			body.Reset()
			continue
		}
		body.WriteString(line)
	}
	flush()
	return files
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
