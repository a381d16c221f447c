package desktop

import (
	"context"
	"errors"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
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
	useRemote := func(cfg config.Config, l Engine, _ func(string)) (Engine, error) {
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
	d := newDictation(local)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Decode.Prompt, cfg.Decode.Language = tt.prompt, "de"
			d.configure(cfg, tt.remote, nil, testLog(t))
			tr, err := d.Transcribe(context.Background(), make([]float32, 16000))
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
