package dictation

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/config/configtest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// saying is an engine that hears the same words in every recording.
type saying string

func (s saying) Transcribe(context.Context, []float32, whisper.Options) (*whisper.Result, error) {
	return &whisper.Result{Text: string(s)}, nil
}

// upper is a cleanup that shouts, and keeps what it was given.
type upper struct{ got []string }

func (u *upper) Rewrite(_ context.Context, _, text string) cleanup.Result {
	u.got = append(u.got, text)
	return cleanup.Result{Text: strings.ToUpper(text)}
}

// A send phrase at the very end is gone before the cleanup and the text
// settings, and the transcript asks for Enter; a pipeline not set to look
// (transcribe, serve) keeps every word.
func TestSendPhraseRemovedBeforeCleanup(t *testing.T) {
	cfg := configtest.Load(t, "cleanup:\n  enabled: true\n  url: http://127.0.0.1:9\n"+
		"profiles:\n  - name: term\n    match: {class: XTerm}\n    send: never\n")
	tests := []struct {
		name, profile, heard string
		look                 bool
		wantText, wantRaw    string
		wantCleaned          string
		wantSend             bool
	}{
		{"said at the end", "", " See you at noon. Send it.", true, "SEE YOU AT NOON.", "See you at noon.", "See you at noon.", true},
		{"inside the sentence", "", " I will send it.", true, "I WILL SEND IT.", "I will send it.", "I will send it.", false},
		{"profile send: never", "term", " ls. Press enter.", true, "LS. PRESS ENTER.", "ls. Press enter.", "ls. Press enter.", false},
		{"a file transcribed", "", " See you at noon. Send it.", false, "SEE YOU AT NOON. SEND IT.", "See you at noon. Send it.", "See you at noon. Send it.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Resolve(cfg, tt.profile)
			if err != nil {
				t.Fatal(err)
			}
			c := &upper{}
			p := Pipeline{Engine: saying(tt.heard), Cleaner: c, Send: tt.look}
			tr, err := p.Run(context.Background(), make([]float32, 16000), set)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Text != tt.wantText || strings.TrimSpace(tr.Raw) != tt.wantRaw || tr.Send != tt.wantSend || len(c.got) != 1 || c.got[0] != tt.wantCleaned {
				t.Errorf("got text %q raw %q send %v, cleanup given %q; want %q, %q, %v, %q",
					tr.Text, tr.Raw, tr.Send, c.got, tt.wantText, tt.wantRaw, tt.wantSend, tt.wantCleaned)
			}
		})
	}
}

// The desktop's dictations look for the phrase: the app hears Send.
func TestFlowTellsTheAppToSend(t *testing.T) {
	f := NewFlow(saying(" Thanks. Press enter!"), nil)
	f.Configure(configtest.Load(t, ""), nil, nil, slog.New(slog.DiscardHandler))
	tr, err := f.Transcribe(context.Background(), f.Request(""), make([]float32, 16000))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(tr.Text) != "Thanks." || !tr.Send {
		t.Errorf("got %q send %v, want \"Thanks.\" and Enter", tr.Text, tr.Send)
	}
}
