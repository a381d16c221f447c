package commands

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/paths"
	"github.com/whisperkey/whisperkey/internal/vad"
)

// speechDetector opens the Silero speech detector, or returns nil with a
// warning: without it every press is decoded, as before, so nothing breaks.
func (e *environment) speechDetector() *vad.Detector {
	d, dir, err := openSpeechDetector(e.log)
	if err != nil {
		e.log.Warn("no speech detector; presses without speech will be decoded too", "err", err, "looked_in", paths.VADDirs())
		return nil
	}
	e.log.Info("speech detector ready", "dir", dir)
	return d
}

// openSpeechDetector opens the detector from the first of vadDirs that has
// it, and says which; the error is the last folder's.
func openSpeechDetector(log *slog.Logger) (*vad.Detector, string, error) {
	err := errors.New("no folder to look in")
	for _, dir := range paths.VADDirs() {
		var lib, model string
		if lib, model, err = vad.Find(dir); err != nil {
			continue
		}
		var d *vad.Detector
		if d, err = vad.Open(lib, model, log); err == nil {
			return d, dir, nil
		}
	}
	return nil, "", err
}

// speechDetectorReport is doctor's account of the detector.
func speechDetectorReport(log *slog.Logger) *backend.DetectorReport {
	d, dir, err := openSpeechDetector(log)
	if err != nil {
		return &backend.DetectorReport{Error: fmt.Sprintf("not found (looked in %s): %v", strings.Join(paths.VADDirs(), ", "), err)}
	}
	_ = d.Close()
	return &backend.DetectorReport{Dir: dir}
}
