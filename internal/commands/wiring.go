package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/cublas"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/loader"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/paths"
)

// environment is what every command shares: the config, and where engines
// and models live.
type environment struct {
	log        *slog.Logger
	cfg        config.Config
	engineRoot string // one folder per variant: cpu, cuda, rocm, rocm-rdna1
	cublasPin  string // $WHISPERKEY_CUBLAS_PIN: a cuBLAS download to use instead of the built-in pin
	stateDir   string // the kept Recent dictations, GPU verification verdicts
	cache      *models.Cache
	// report is the GPU probes' answer, asked once per command: choosing the
	// model and opening it both need it.
	report *gpu.Report
}

// newEnvironment reads the config at cfgPath. A config with errors is
// reported and the defaults are used, so `transcribe --model` still works.
func newEnvironment(log *slog.Logger, cfgPath string) (*environment, error) {
	cfg, _, err := config.Load(cfgPath, configOptions())
	if err != nil {
		log.Warn("config not used; the defaults apply", "err", err)
		cfg = config.Defaults()
	}
	return newEnvironmentFor(log, cfg)
}

// commandConfig reads the config a one-shot command runs with: explicit
// (a --config flag) when given, else the user's. The errors of a file the
// command line named, or of any file when strict, are a usage error; the
// user's file with errors is reported through notice and the defaults
// apply, so `transcribe --model` still works. path is the file read, used
// that file when it exists and was used ("" for the defaults).
func commandConfig(explicit string, strict bool, notice func(string)) (cfg config.Config, path, used string, err error) {
	path = explicit
	if path == "" {
		if path, err = configPath(); err != nil {
			return cfg, "", "", err
		}
	}
	// Unknown keys (warnings) do not concern the commands; the app reports them.
	cfg, _, err = config.Load(path, configOptions())
	switch {
	case err != nil && (explicit != "" || strict):
		return cfg, path, "", usageError{strings.ReplaceAll(err.Error(), "\n", "; ")}
	case err != nil:
		notice(fmt.Sprintf("your config %s has errors, so this uses the defaults (whisperkey config validate says more): %s",
			path, strings.ReplaceAll(err.Error(), "\n", "; ")))
		return config.Defaults(), path, "", nil
	}
	if _, serr := os.Stat(path); serr != nil {
		return cfg, path, "", nil // no file: the defaults
	}
	return cfg, path, path, nil
}

// newEnvironmentFor is the environment of a config already read.
func newEnvironmentFor(log *slog.Logger, cfg config.Config) (*environment, error) {
	root, err := paths.EngineRoot()
	if err != nil {
		return nil, err
	}
	def, err := paths.ModelsDir()
	if err != nil {
		return nil, err
	}
	cache, err := models.New(models.Options{Dir: cfg.ModelCacheDir, Endpoint: cfg.ModelsMirror}, log)
	if err != nil {
		return nil, err
	}
	state, err := paths.StateDir()
	if err != nil {
		return nil, err
	}
	// Before the state folder existed these files lived in the cache root.
	moveState(filepath.Dir(def), state, []string{history.FileName, gpu.VerifyFile}, log)
	return &environment{log: log, cfg: cfg, engineRoot: root, cublasPin: os.Getenv(cublas.PinEnv), stateDir: state, cache: cache}, nil
}

// moveState moves each named file from the old folder to the state folder,
// once: a file already in the state folder is newer and wins. A file that
// cannot be moved stays where it was, and the log says so.
func moveState(from, to string, names []string, log *slog.Logger) {
	if filepath.Clean(from) == filepath.Clean(to) {
		return // Windows: both are %LOCALAPPDATA%\whisperkey
	}
	for _, name := range names {
		src, dst := filepath.Join(from, name), filepath.Join(to, name)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		err := os.MkdirAll(to, 0o700)
		if err == nil {
			err = moveFile(src, dst)
		}
		if err != nil {
			log.Warn("could not move to the state folder; it stays where it was", "file", src, "to", to, "err", err)
			continue
		}
		log.Info("moved to the state folder", "file", name, "from", from, "to", to)
	}
}

// moveFile renames src to dst, or copies and removes it across file systems.
func moveFile(src, dst string) error {
	if os.Rename(src, dst) == nil {
		return nil
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst+".tmp", b, st.Mode().Perm()); err != nil {
		return err
	}
	if err := os.Rename(dst+".tmp", dst); err != nil {
		return err
	}
	return os.Remove(src)
}

// modelDir resolves the model to a directory: name (a --model flag: a
// directory, a registry name or a repo id) or, when empty, the config's
// model, the same way the tray app does (backend.ResolveModel).
func (e *environment) modelDir(ctx context.Context, name string, c config.Engine) (string, error) {
	if name == "" {
		name = e.cfg.Engine.Model
	}
	picked, err := backend.ResolveModel(ctx, name, e.cache, e.backendOptions(c), e.log)
	if err != nil {
		return "", err
	}
	if picked.Auto {
		e.log.Info("model chosen for this machine", "model", picked.Name)
	}
	return picked.Dir, nil
}

// backendOptions maps the engine settings (the config's, flags applied)
// to the backend's options the way the tray app does (loader.BackendOptions).
func (e *environment) backendOptions(c config.Engine) backend.Options {
	opt, err := loader.BackendOptions(c, e.engineRoot, e.stateDir)
	if err != nil {
		e.log.Warn("no self-test sample; GPUs will not be verified", "err", err)
	}
	if e.report == nil {
		r := backend.Detect(context.Background(), opt, e.log)
		e.report = &r
	}
	opt.Report = e.report
	return opt
}

// cliEnvironment reads the user's config (or WHISPERKEY_CONFIG's) for a
// one-shot command.
func cliEnvironment(log *slog.Logger) (*environment, error) {
	cfgPath, err := configPath()
	if err != nil {
		return nil, err
	}
	return newEnvironment(log, cfgPath)
}

// openModel starts the engine on the best variant for the choice, falling
// back to the CPU (and saying why) when a GPU variant cannot be used. A
// directory that holds no valid model is a usage error: the user named it.
func (e *environment) openModel(ctx context.Context, modelDir string, c config.Engine) (*backend.Loaded, error) {
	m, err := backend.Open(ctx, modelDir, e.backendOptions(c), e.log)
	if errors.Is(err, ct2bin.ErrInvalidModel) {
		return nil, usageError{err.Error()}
	}
	return m, err
}

// cliLogger logs warnings (or everything, when verbose) to stderr.
func cliLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
