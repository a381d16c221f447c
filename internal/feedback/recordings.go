package feedback

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
)

// KeepRecordings returns rec, or when dir names a folder (the
// WHISPERKEY_SAVE_RECORDINGS knob, for bug reports: what did the app hear?)
// a recorder that also writes each recording there as a WAV file.
func KeepRecordings(rec app.Recorder, dir string, log *slog.Logger) app.Recorder {
	if dir == "" {
		return rec
	}
	return savingRecorder{rec, dir, log}
}

type savingRecorder struct {
	app.Recorder
	dir string
	log *slog.Logger
}

func (r savingRecorder) Stop() ([]float32, error) {
	s, err := r.Recorder.Stop()
	if len(s) > 0 {
		name := filepath.Join(r.dir, time.Now().Format("20060102-150405.000")+".wav")
		if werr := saveWAV(name, s); werr != nil {
			r.log.Warn("could not keep the recording", "path", name, "err", werr)
		}
	}
	return s, err
}

func saveWAV(name string, s []float32) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	// Float, not 16-bit: the file holds exactly the samples that were
	// transcribed, so `transcribe` on it gives the dictation's words.
	if err := audio.EncodeWAV(f, s, audio.SampleRate, 1, audio.Float32); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
