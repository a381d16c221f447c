package desktop

import (
	"context"
	"errors"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// namedEngine answers with its own name, so a test sees which engine ran
// and with which decoding settings.
type namedEngine struct {
	name string
	got  whisper.Options
}

func (e *namedEngine) Transcribe(_ context.Context, _ []float32, o whisper.Options) (*whisper.Result, error) {
	e.got = o
	return &whisper.Result{Text: e.name}, nil
}

// The RemoteEngine seam: its engine is used when it gives one, the local
// engine otherwise (no remote configured, or one that cannot be set up), and
// decoding settings follow the config.
func TestDictationEngineChoice(t *testing.T) {
	local, remote := &namedEngine{name: "local"}, &namedEngine{name: "remote"}
	useRemote := func(cfg config.Config, l dictation.Engine, _ func(string)) (dictation.Engine, error) {
		if cfg.Decode.Prompt == "remote" {
			return remote, nil
		}
		if cfg.Decode.Prompt == "broken" {
			return nil, errors.New("remote.url: no such host")
		}
		return l, nil
	}
	tests := []struct {
		name   string
		prompt string
		remote RemoteEngine
		want   string
	}{
		{"no seam wired", "remote", nil, "local"},
		{"remote configured", "remote", useRemote, "remote"},
		{"remote not configured", "", useRemote, "local"},
		{"remote that cannot be set up", "broken", useRemote, "local"},
	}
	d := dictation.NewFlow(local, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Decode.Prompt, cfg.Decode.Language = tt.prompt, "de"
			d.Configure(cfg, tt.remote, nil, testLog(t))
			tr, err := d.Transcribe(context.Background(), d.Request(""), make([]float32, 16000))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Text != tt.want {
				t.Fatalf("dictated on %s, want %s", tr.Text, tt.want)
			}
			used := map[string]*namedEngine{"local": local, "remote": remote}[tt.want]
			if used.got.Language != "de" || used.got.InitialPrompt != tt.prompt {
				t.Fatalf("decoding options %+v do not follow the config", used.got)
			}
		})
	}
}

// countingEngine is a remote engine that counts the presses it is asked about.
type countingEngine struct{ calls int }

func (e *countingEngine) Transcribe(context.Context, []float32, whisper.Options) (*whisper.Result, error) {
	e.calls++
	return &whisper.Result{Text: "heard"}, nil
}

// With a remote engine, the real speech detector keeps presses without
// speech on this machine: "nothing heard", no request. Speech still goes out.
func TestRemoteIsNotAskedAboutPressesWithoutSpeech(t *testing.T) {
	remote := &countingEngine{}
	d := dictation.NewFlow(&namedEngine{name: "local"}, Detector(vadtest.Open(t)))
	useRemote := func(config.Config, dictation.Engine, func(string)) (dictation.Engine, error) { return remote, nil }
	d.Configure(config.Defaults(), useRemote, nil, testLog(t))
	tests := []struct {
		name     string
		samples  []float32
		want     string
		requests int
	}{
		{"clicks", testenv.Clicks(2, 21), "", 0},
		{"breathing", testenv.Breathing(3, 22), "", 0},
		{"pink noise", testenv.PinkNoise(2, 23), "", 0},
		{"speech", testenv.Speech(t, "Please call me back."), "heard", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := remote.calls
			tr, err := d.Transcribe(context.Background(), d.Request(""), tt.samples)
			if err != nil {
				t.Fatal(err)
			}
			asked := remote.calls - before
			if tr.Text != tt.want || asked != tt.requests {
				t.Errorf("text %q after %d requests, want %q after %d", tr.Text, asked, tt.want, tt.requests)
			}
		})
	}
}
