package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/cublas"
	"github.com/whisperkey/whisperkey/internal/models"
)

const gpuUsage = "usage: whisperkey gpu fetch | whisperkey gpu import FILE\n" +
	"  fetch        download NVIDIA's cuBLAS into the cuda engine folder (no CUDA toolkit needed)\n" +
	"  import FILE  the same from the nvidia-cublas-cu12 wheel (or NVIDIA's zip) copied in by hand"

// runGPU puts cuBLAS into the cuda engine folder, downloaded or imported.
func runGPU(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "fetch" && args[0] != "import") || (args[0] == "fetch") != (len(args) == 1) || (args[0] == "import" && len(args) != 2) {
		return usageError{gpuUsage}
	}
	log := cliLogger(stderr, false)
	env, err := cliEnvironment(log)
	if err != nil {
		return err
	}
	pin, dir, err := backend.CUBLAS(backend.Options{EngineRoot: env.engineRoot}, runtime.GOOS, env.cublasPin)
	if err != nil {
		return err
	}
	if args[0] == "import" {
		if _, err := os.Stat(args[1]); err != nil {
			return usageError{fmt.Sprintf("gpu import: %v", err)}
		}
		if err := cublas.Import(args[1], dir, pin, log); err != nil {
			if errors.Is(err, cublas.ErrMismatch) {
				return usageError{err.Error()}
			}
			return err
		}
	} else {
		if cublas.Installed(dir, pin) {
			fmt.Fprintf(stdout, "%s is already in %s\n", pin.Name(), dir)
			return nil
		}
		fmt.Fprintf(stderr, "Downloading %s (%s) from %s\n", pin.Name(), pin.File(), pin.URL)
		draw, end := models.ProgressLine(stderr)
		err := cublas.Download(ctx, dir, pin, env.cache, draw, log)
		end()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%s installed in %s; the tray app restarts its engine on the GPU (or run `whisperkey doctor`)\n", pin.Name(), dir)
	return nil
}
