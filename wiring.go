package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// environment is what every command shares: where engines and models live.
type environment struct {
	log        *slog.Logger
	engineRoot string // holds one folder per variant: cpu, cuda, rocm, rocm-rdna1
	cache      *models.Cache
}

func newEnvironment(log *slog.Logger) (*environment, error) {
	root := os.Getenv("WHISPERKEY_ENGINE_ROOT")
	if root == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find own executable: %w", err)
		}
		root = filepath.Join(filepath.Dir(exe), "engine")
	}
	dir, err := models.DefaultDir()
	if err != nil {
		return nil, err
	}
	cache, err := models.New(models.Options{Dir: dir}, log)
	if err != nil {
		return nil, err
	}
	return &environment{log: log, engineRoot: root, cache: cache}, nil
}

// modelDir resolves a model directory, a registry name or a repo id to a
// directory; "" means the configured default.
func (e *environment) modelDir(name string) (string, error) {
	if name == "" {
		name = defaultModelName()
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return name, nil
	}
	if dir, ok := e.cache.Resolve(name); ok {
		return dir, nil
	}
	if looksLikePath(name) {
		return "", fmt.Errorf("model directory %s does not exist; point --model at a CTranslate2 Whisper folder", name)
	}
	return "", fmt.Errorf("model %q is not downloaded; run `whisperkey models pull %s` (or pass --model DIR)", name, name)
}

func looksLikePath(s string) bool {
	return filepath.IsAbs(s) || s == "." || s == ".." || filepath.Base(s) != s ||
		(len(s) > 0 && (s[0] == '.' || s[0] == '~'))
}

// defaultModelName is the model used when neither flag nor config names one.
func defaultModelName() string {
	if m := os.Getenv("WHISPERKEY_MODEL"); m != "" {
		return m
	}
	return "base"
}

// engineChoice is what the user asked for; auto picks by the detected GPU.
type engineChoice struct {
	device      string
	deviceIndex int
	computeType string
	threads     int
}

// engineDecision is the variant in use and the sentence that explains it.
type engineDecision struct {
	spec    engine.Spec
	message string
}

// openModel starts the engine on the best variant for choice, falling back to
// the CPU at once (and saying why) when a GPU variant is missing or fails.
func (e *environment) openModel(ctx context.Context, modelDir string, choice engineChoice) (*whisper.Model, engineDecision, error) {
	d := e.decide(choice)
	d.spec.ModelDir = modelDir
	m, err := whisper.Open(ctx, d.spec, engine.Options{}, e.log)
	if err == nil || d.spec.Device == "cpu" {
		return m, d, err
	}
	cpu := e.cpuDecision(choice)
	cpu.spec.ModelDir = modelDir
	cpu.message = fmt.Sprintf("%s, but the GPU engine failed to start (%v) — using CPU mode. Setup: docs/gpu-setup.md#troubleshooting", d.message, err)
	e.log.Warn(cpu.message)
	m, err = whisper.Open(ctx, cpu.spec, engine.Options{}, e.log)
	return m, cpu, err
}

func (e *environment) cpuDecision(choice engineChoice) engineDecision {
	ct := choice.computeType
	if ct == "" {
		ct = "int8"
	}
	return engineDecision{
		spec: engine.Spec{LibDir: filepath.Join(e.engineRoot, "cpu"), Device: "cpu", ComputeType: ct,
			IntraThreads: choice.threads},
		message: "No supported GPU found — using CPU mode",
	}
}

func (e *environment) decide(choice engineChoice) engineDecision {
	return e.cpuDecision(choice)
}

// cliLogger logs warnings (or everything, when verbose) to stderr.
func cliLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

var _ = runtime.GOOS
