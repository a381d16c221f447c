package dictation_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/config/configtest"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// nothingHeard is an engine that hears no words.
type nothingHeard struct{}

func (nothingHeard) Transcribe(context.Context, []float32, whisper.Options) (*whisper.Result, error) {
	return &whisper.Result{}, nil
}

// levelDetector is a speech detector whose streams are levelStreams.
type levelDetector struct{}

func (levelDetector) Speech(s []float32) (int, int, bool, error) { return 0, len(s), true, nil }
func (levelDetector) Cut(s []float32) (int, error)               { return len(s), nil }
func (levelDetector) Stream() dictation.SpeechStream             { return &levelStream{} }

// The stop after silence asks for the stop once the silence after the last
// speech is long enough, or nothing has been said for NoSpeechLimit; never
// in hold mode or when off. Windows are 32 ms: 2 s is 62.5 of them.
func TestHushStopsAfterSilence(t *testing.T) {
	defer goleak.VerifyNone(t) // each follower stopped by its stop func
	const toggle2s = "hotkeys:\n  mode: toggle\n  stop_after_silence: 2s\n"
	type part struct {
		windows int
		level   float32 // 1: speech, 0: silence
	}
	tests := []struct {
		name   string
		config string
		said   []part
		want   bool
		// followed: the capture is read (hold mode and off read nothing)
		followed bool
	}{
		{"speech then 2 s of silence", toggle2s, []part{{30, 1}, {64, 0}}, true, true},
		{"speech then 1.9 s of silence", toggle2s, []part{{30, 1}, {59, 0}}, false, true},
		{"a pause inside the speech counts from the last word", toggle2s, []part{{30, 1}, {50, 0}, {10, 1}, {50, 0}}, false, true},
		{"the second pause long enough", toggle2s, []part{{30, 1}, {50, 0}, {10, 1}, {64, 0}}, true, true},
		{"nothing said for 3 s", toggle2s, []part{{94, 0}}, false, true},
		// A laptop's microphone records the start cue from its speakers.
		{"the start cue alone, then 3 s of silence", toggle2s, []part{{4, 1}, {94, 0}}, false, true},
		{"the same with the cues off: speech", toggle2s + "sounds: false\n", []part{{4, 1}, {64, 0}}, true, true},
		{"nothing said for 5 s", toggle2s, []part{{157, 0}}, true, true},
		{"nothing said, a long setting", "hotkeys:\n  mode: toggle\n  stop_after_silence: 8s\n", []part{{200, 0}}, false, true},
		{"hold mode: the key ends it", "hotkeys:\n  mode: hold\n  stop_after_silence: 2s\n", []part{{30, 1}, {200, 0}}, false, false},
		{"off", "hotkeys:\n  mode: toggle\n", []part{{30, 1}, {200, 0}}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &mic{}
			for _, p := range tt.said {
				m.say(p.windows, p.level)
			}
			f := dictation.NewFlow(nothingHeard{}, levelDetector{})
			f.Capture(m.read, nil)
			f.Configure(configtest.Load(t, tt.config), nil, nil, slog.New(slog.DiscardHandler))
			stopped := make(chan struct{})
			stop := f.Hush(func(context.Context) { close(stopped) }).Follow(context.Background(), f.Request(""))
			defer stop()
			if tt.want {
				select {
				case <-stopped:
				case <-time.After(30 * time.Second): // a hang guard, not a speed bound
					t.Fatal("no stop after the silence")
				}
				return
			}
			if tt.followed {
				m.settle(t) // it has scored everything said
			}
			stop()
			select {
			case <-stopped:
				t.Fatal("stopped, want the recording to go on")
			default:
			}
		})
	}
}
