package feedback

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
)

// Takes is a folder of kept recordings, one WAV file each, readable only by
// the user: history.keep_audio_days's (paths.TakesDir), which Recent
// transcribes again, and the WHISPERKEY_SAVE_RECORDINGS knob's. It is the
// one writer of recordings to disk.
type Takes struct {
	dir string
	log *slog.Logger
}

// NewTakes is the takes kept in dir; nothing is written until Save.
func NewTakes(dir string, log *slog.Logger) *Takes { return &Takes{dir: dir, log: log} }

// TakeName is the file name of a take recorded at at.
func TakeName(at time.Time) string { return at.UTC().Format("20060102-150405.000000") + ".wav" }

// Save writes samples (16 kHz mono) as the file name, creating the folder
// (0700) and the file (0600) for the user alone. Float samples, not 16-bit:
// the file holds exactly what was transcribed, so a transcription again of
// it, or `transcribe` on it, hears the same.
func (t *Takes) Save(name string, samples []float32) error {
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("keep the recording: %w", err)
	}
	tmp, err := os.CreateTemp(t.dir, ".take-*.tmp") // 0600
	if err != nil {
		return fmt.Errorf("keep the recording: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	if err := audio.EncodeWAV(tmp, samples, audio.SampleRate, 1, audio.Float32); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("keep the recording %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("keep the recording %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), t.path(name)); err != nil {
		return fmt.Errorf("keep the recording %s: %w", name, err)
	}
	return nil
}

// Load reads the take called name back as 16 kHz mono samples.
func (t *Takes) Load(name string) ([]float32, error) {
	f, err := os.Open(t.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the recording of that take is no longer kept (history.keep_audio_days deleted it)")
	}
	if err != nil {
		return nil, fmt.Errorf("read the kept recording: %w", err)
	}
	defer f.Close()
	c, err := audio.DecodeWAV(f)
	if err != nil {
		return nil, fmt.Errorf("read the kept recording %s: %w", name, err)
	}
	if c.Rate != audio.SampleRate || c.Channels != 1 {
		return nil, fmt.Errorf("read the kept recording %s: %d Hz, %d channels, not the 16 kHz mono WhisperKey keeps", name, c.Rate, c.Channels)
	}
	return c.Samples, nil
}

// Prune deletes the takes saved more than keep ago (all of them when keep
// is 0), and returns how many; files that are not takes are left alone. A
// missing folder holds none.
func (t *Takes) Prune(now time.Time, keep time.Duration) (int, error) {
	list, err := os.ReadDir(t.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("list the kept recordings: %w", err)
	}
	n := 0
	var errs []error
	for _, de := range list {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, ".wav") {
			continue
		}
		info, err := de.Info()
		if err != nil || now.Sub(info.ModTime()) < keep {
			continue
		}
		if err := os.Remove(t.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("delete old recordings: %w", err)
	}
	return n, nil
}

// path is the file of the take called name; a name is a base name, never a
// path (the history file may have been edited).
func (t *Takes) path(name string) string { return filepath.Join(t.dir, filepath.Base(name)) }
