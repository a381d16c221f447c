package main

import (
	"os"
	"path/filepath"

	"github.com/whisperkey/whisperkey/internal/vad"
)

// vadDirs are where the speech detector's model and ONNX Runtime may be, in
// order: $WHISPERKEY_VAD_DIR, "vad" beside the executable (installed), and
// the user cache scripts/vad.sh fills (development).
func vadDirs() []string {
	var dirs []string
	if d := os.Getenv("WHISPERKEY_VAD_DIR"); d != "" {
		return []string{d}
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "vad"))
	}
	if c := os.Getenv("WHISPERKEY_CACHE"); c != "" {
		dirs = append(dirs, filepath.Join(c, "vad"))
	} else if c, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(c, "whisperkey", "vad"))
	}
	return dirs
}

// speechDetector opens the Silero speech detector, or returns nil with a
// warning: without it every press is decoded, as before, so nothing breaks.
func (e *environment) speechDetector() *vad.Detector {
	var lastErr error
	for _, dir := range vadDirs() {
		lib, model, err := vad.Find(dir)
		if err != nil {
			lastErr = err
			continue
		}
		d, err := vad.Open(lib, model, e.log)
		if err != nil {
			lastErr = err
			continue
		}
		e.log.Info("speech detector ready", "dir", dir)
		return d
	}
	e.log.Warn("no speech detector; presses without speech will be decoded too", "err", lastErr, "looked_in", vadDirs())
	return nil
}
