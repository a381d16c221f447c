package dictation

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config/configtest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// heardLanguage is an engine that answers with the language it was asked for.
type heardLanguage struct{}

func (heardLanguage) Transcribe(_ context.Context, _ []float32, o whisper.Options) (*whisper.Result, error) {
	return &whisper.Result{Text: o.Language}, nil
}

// A dictation's settings are resolved once, at key-down, into the Request
// that travels with it: the profile chosen then applies at the release.
// When the config changes in between, the release takes the new file's
// settings for the same profile, as it would have without a Request.
func TestRequestCarriesTheSettings(t *testing.T) {
	const profiles = "profiles:\n  - name: term\n    match: {class: XTerm}\n    language: %s\n"
	f := NewFlow(heardLanguage{}, nil)
	f.Configure(configtest.Load(t, "language: en\n"+fmt.Sprintf(profiles, "de")), nil, nil, slog.New(slog.DiscardHandler))
	tests := []struct {
		name    string
		req     *Request
		edit    string // a new config before the release; "" for none
		want    string
		profile string
	}{
		{name: "no profile", req: f.Request(""), want: "en"},
		{name: "the profile chosen at key-down", req: f.Request("term"), want: "de", profile: "term"},
		{name: "a profile gone from the file", req: f.Request("gone"), want: "en"},
		{name: "the file changed during the hold", req: f.Request("term"), edit: "language: en\n" + fmt.Sprintf(profiles, "fr"), want: "fr", profile: "term"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit != "" {
				f.Configure(configtest.Load(t, tt.edit), nil, nil, slog.New(slog.DiscardHandler))
			}
			tr, err := f.Transcribe(context.Background(), tt.req, make([]float32, 16000))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Text != tt.want || tt.req.Profile() != tt.profile {
				t.Errorf("decoded in %q with profile %q, want %q and %q", tr.Text, tt.req.Profile(), tt.want, tt.profile)
			}
		})
	}
}

// cutAll is a speech detector that finds speech and cuts nothing.
type cutAll struct{}

func (cutAll) Speech(s []float32) (int, int, bool, error) { return 0, len(s), true, nil }
func (cutAll) Cut(s []float32) (int, error)               { return len(s), nil }

// Build puts the gate in the pipeline only for an engine that does not gate
// itself; the cut is there whenever a detector is.
func TestBuildPlacesTheGate(t *testing.T) {
	tests := []struct {
		name              string
		selfGated         bool
		speech            SpeechGate
		wantGate, wantCut bool
	}{
		{"local engine", true, cutAll{}, false, true},
		{"remote engine", false, cutAll{}, true, true},
		{"no detector", false, nil, false, false},
	}
	for _, tt := range tests {
		p := Build(heardLanguage{}, tt.selfGated, tt.speech, nil)
		if (p.Gate != nil) != tt.wantGate || (p.Trim != nil) != tt.wantCut || p.Engine == nil {
			t.Errorf("%s: gate %v, cut %v; want %v, %v", tt.name, p.Gate != nil, p.Trim != nil, tt.wantGate, tt.wantCut)
		}
	}
}
