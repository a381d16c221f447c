package feedback

import (
	"log/slog"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
)

// KeepRecordings returns rec, or when dir names a folder (the
// WHISPERKEY_SAVE_RECORDINGS knob, for bug reports: what did the app hear?)
// a recorder that also writes each recording there as a WAV file, through
// the same Takes as history.keep_audio_days.
func KeepRecordings(rec app.Recorder, dir string, log *slog.Logger) app.Recorder {
	if dir == "" {
		return rec
	}
	return savingRecorder{rec, NewTakes(dir, log), log}
}

type savingRecorder struct {
	app.Recorder
	takes *Takes
	log   *slog.Logger
}

func (r savingRecorder) Stop() ([]float32, error) {
	s, err := r.Recorder.Stop()
	if len(s) > 0 {
		name := time.Now().Format("20060102-150405.000") + ".wav"
		if werr := r.takes.Save(name, s); werr != nil {
			r.log.Warn("could not keep the recording", "path", name, "err", werr)
		}
	}
	return s, err
}
