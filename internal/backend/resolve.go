package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
)

// ErrModelMissing means the chosen model is not downloaded yet; the error's
// text says how to get it.
var ErrModelMissing = errors.New("model is not downloaded")

// ModelChoice is the model to load for a configured model value.
type ModelChoice struct {
	// Name is the model as users know it: a registry name, a repo id or a folder.
	Name string
	// Dir holds the model; "" when it is not downloaded (see ErrModelMissing).
	Dir string
	// Auto: picked for the hardware because the config says auto.
	Auto bool
	// Wanted is the model auto picked for the hardware when Name is a
	// downloaded one standing in for it (Wanted is not downloaded); "" otherwise.
	Wanted string
	// Report is the GPU detection auto was picked by, for Options.Report, so
	// that loading the model does not probe the GPUs a second time.
	Report *gpu.Report
}

// ResolveModel turns the config's model value into a folder with no network
// use; the command line and the tray both call it, so they agree. "auto"
// takes the model that suits the hardware (models.DefaultFor) or, when that
// one is not downloaded, the largest downloaded built-in model no bigger
// than it, so a machine with no network starts on what it has. A model that
// is not downloaded returns its Name with an error wrapping ErrModelMissing.
func ResolveModel(ctx context.Context, model string, cache *models.Cache, opt Options, log *slog.Logger) (ModelChoice, error) {
	if model == "" || model == choice.ModelAuto {
		return resolveAuto(ctx, cache, opt, log)
	}
	c := ModelChoice{Name: model}
	if st, err := os.Stat(model); err == nil && st.IsDir() {
		c.Dir = model
		return c, nil
	}
	if dir, ok := cache.Resolve(model); ok {
		c.Dir = dir
		return c, nil
	}
	m, err := cache.Lookup(model)
	if err != nil {
		return c, err
	}
	if m.Local != "" {
		if _, err := os.Stat(m.Local); err != nil {
			return c, fmt.Errorf("model folder %s does not exist; point the model at a CTranslate2 Whisper folder", m.Local)
		}
		return c, fmt.Errorf("model folder %s has no model.bin; point the model at a CTranslate2 Whisper folder", m.Local)
	}
	return c, fmt.Errorf("%w: %s — run `whisperkey models pull %s` or pick it in the tray's Model menu "+
		"(where Hugging Face is blocked: `whisperkey models import PATH` or models.mirror, see %s)", ErrModelMissing, model, model, models.InstallingAtWorkDoc)
}

func resolveAuto(ctx context.Context, cache *models.Cache, opt Options, log *slog.Logger) (ModelChoice, error) {
	report := Detect(ctx, opt, log)
	dec := Decide(report, opt)
	var vram uint64
	if dec.GPU != nil {
		vram = dec.GPU.VRAM
	}
	want := models.DefaultFor(dec.Device != "cpu", vram)
	c, err := ResolveModel(ctx, want, cache, opt, log)
	c.Auto, c.Report = true, &report
	if err == nil || !errors.Is(err, ErrModelMissing) {
		return c, err
	}
	if alt, ok := downloadedFallback(cache.List(), want); ok {
		log.Info("the model for this hardware is not downloaded; using one that is", "wanted", want, "using", alt.Name)
		return ModelChoice{Name: alt.Name, Dir: alt.Path, Auto: true, Wanted: want, Report: &report}, nil
	}
	return c, err
}

// downloadedFallback picks, among downloaded built-in models, the largest no
// bigger than want, else the smallest. Sizes are the registry's, so that two
// models of one size compare equal whatever their files add up to. With no
// built-in model downloaded, models copied in with `models import` are
// picked the same way by their size: where Hugging Face is blocked, an
// import is all a computer has, and auto should start on it.
func downloadedFallback(list []models.Entry, want string) (models.Entry, bool) {
	size := map[string]int64{}
	for _, m := range models.Registry() {
		size[m.Name] = m.Size
	}
	if e, ok := fallbackAmong(list, size[want], func(e models.Entry) (int64, bool) { s, ok := size[e.Name]; return s, ok }); ok {
		return e, true
	}
	return fallbackAmong(list, size[want], func(e models.Entry) (int64, bool) { return e.Size, e.Imported })
}

// fallbackAmong picks among the downloaded entries that sizeOf accepts the
// largest no bigger than limit, else the smallest.
func fallbackAmong(list []models.Entry, limit int64, sizeOf func(models.Entry) (int64, bool)) (models.Entry, bool) {
	size := map[string]int64{}
	var best, smallest models.Entry
	for _, e := range list {
		s, ok := sizeOf(e)
		if !e.Downloaded || !ok {
			continue
		}
		size[e.Name] = s
		if smallest.Name == "" || s < size[smallest.Name] {
			smallest = e
		}
		if s <= limit && (best.Name == "" || s > size[best.Name]) {
			best = e
		}
	}
	if best.Name != "" {
		return best, true
	}
	return smallest, smallest.Name != ""
}
