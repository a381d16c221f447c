package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/models"
)

// environment is what every command shares: where engines and models live.
type environment struct {
	log        *slog.Logger
	engineRoot string // one folder per variant: cpu, cuda, rocm, rocm-rdna1
	stateDir   string // GPU verification verdicts
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
	return &environment{log: log, engineRoot: root, stateDir: filepath.Dir(dir), cache: cache}, nil
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

func (e *environment) backendOptions(c engineChoice) backend.Options {
	sample, err := backend.SelfTestSample()
	if err != nil {
		e.log.Warn("no self-test sample; GPUs will not be verified", "err", err)
	}
	return backend.Options{
		EngineRoot: e.engineRoot, StateDir: e.stateDir, Device: c.device, DeviceIndex: c.deviceIndex,
		ComputeType: c.computeType, Threads: c.threads, Sample: sample,
	}
}

// openModel starts the engine on the best variant for the choice, falling
// back to the CPU (and saying why) when a GPU variant cannot be used.
func (e *environment) openModel(ctx context.Context, modelDir string, c engineChoice) (*backend.Loaded, error) {
	return backend.Open(ctx, modelDir, e.backendOptions(c), e.log)
}

// cliLogger logs warnings (or everything, when verbose) to stderr.
func cliLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
