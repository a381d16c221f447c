package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
)

// errDownload marks a model download that failed.
var errDownload = errors.New("download failed")

// downloadError is a failed download; it is errDownload, and its text is the cause's.
type downloadError struct{ err error }

func (e downloadError) Error() string        { return e.err.Error() }
func (e downloadError) Unwrap() error        { return e.err }
func (e downloadError) Is(target error) bool { return target == errDownload }

// ReadyText is the idle status line for the loaded model l (nil when none is).
func ReadyText(l *backend.Loaded, name string) string {
	if l == nil {
		return fmt.Sprintf("No speech model is loaded (%s failed to load) — pick a model in the Model menu", ModelName(name))
	}
	dev := "CPU"
	if l.Spec.Device != "cpu" {
		dev = "GPU"
	}
	return fmt.Sprintf("%s — model %s · %s %s · ready", DecisionText(l.Decision, l.Message), ModelName(name), dev, l.ComputeType())
}

// UnloadedText is the idle status line while the model is unloaded for
// idleness (engine.unload_after): dictation still works, loading as it starts.
func UnloadedText(name string, after time.Duration) string {
	return fmt.Sprintf("Model %s unloaded (idle %s), its memory given back — it loads again as you start a dictation · ready",
		ModelName(name), after)
}

// DecisionText is the engine's sentence, pointing at the Device menu's
// download when cuBLAS is all the GPU lacks.
func DecisionText(d gpu.Decision, msg string) string {
	if d.FetchCUBLAS != 0 {
		msg += " — pick “" + gpu.FetchLabel + "” in the Device menu"
	}
	return msg
}

// ModelName is how the status line names a model: a folder by its base name.
func ModelName(arg string) string {
	if strings.ContainsRune(arg, os.PathSeparator) {
		return filepath.Base(arg)
	}
	return arg
}

// MissingModelText says what is missing when no model could be loaded, and
// how to fix it; after a failed download also how to get a model in where
// Hugging Face is blocked, with the guide at help.
func MissingModelText(name string, err error, help string) string {
	fix := fmt.Sprintf("Connect to the internet and pick “%s” in the Model menu, or run `whisperkey models pull %s`", RetryLabel(name), name)
	switch {
	case errors.Is(err, errDownload) && !errors.Is(err, models.ErrNoSpace):
		return fmt.Sprintf("Model %s is not downloaded and the download failed (%v). %s. Where Hugging Face is blocked, "+
			"copy a model in with `whisperkey models import PATH` or set models.mirror in config.yaml (%s)", name, errors.Unwrap(err), fix, help)
	case errors.Is(err, errDownload):
		return fmt.Sprintf("Model %s is not downloaded and the download failed (%v). %s", name, errors.Unwrap(err), fix)
	case errors.Is(err, backend.ErrModelMissing):
		return fmt.Sprintf("Model %s is not downloaded yet. %s", name, fix)
	}
	return fmt.Sprintf("Model %s could not be loaded: %v. Pick another in the Model menu", ModelName(name), err)
}

// RetryLabel is the Model menu item that retries a failed download.
func RetryLabel(name string) string { return name + " — retry download" }
