package desktop

import (
	"context"
	"errors"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/config/configtest"
	"github.com/whisperkey/whisperkey/internal/output"
)

const profilesConfig = `
language: en
profiles:
  - name: term
    match: {class: XTerm}
    output: {case: lower, strip_final_period: true}
    language: de
    paste: type
  - name: chat
    match: {exe: slack}
    auto_send: true
  - name: quiet
    match: {title: Notes}
    auto_send: false
  - name: said
    match: {title: Chat}
    send: when_said
`

func TestDictationAppliesTheProfileOfItsWindow(t *testing.T) {
	cfg := configtest.Load(t, profilesConfig)
	local := &namedEngine{name: " Hello there."}
	d := dictation.NewFlow(local, nil)
	d.Configure(cfg, nil, nil, testLog(t))
	tests := []struct {
		profile, want, lang string
	}{
		{"", "Hello there.", "en"},
		{"term", "hello there", "de"},
		{"gone", "Hello there.", "en"}, // removed from the file meanwhile: the defaults
	}
	for _, tt := range tests {
		tr, err := d.Transcribe(context.Background(), d.Request(tt.profile), make([]float32, 16000))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(tr.Text) != tt.want || local.got.Language != tt.lang || tr.Cleanup != "" {
			t.Errorf("profile %q: %q in %q (cleanup %q), want %q in %q", tt.profile, tr.Text, local.got.Language, tr.Cleanup, tt.want, tt.lang)
		}
	}
}

func TestPasteOptionsFollowTheProfile(t *testing.T) {
	cfg := configtest.Load(t, profilesConfig+"paste: paste-enter\n")
	tests := []struct {
		profile string
		enter   bool
		want    output.Options
	}{
		{"", false, output.Options{PressEnter: true}}, // paste-enter: send always
		{"", true, output.Options{PressEnter: true}},
		{"term", false, output.Options{Mode: choice.Type}},
		{"chat", false, output.Options{PressEnter: true}},
		{"quiet", false, output.Options{Mode: choice.Paste}}, // turns paste-enter's Enter off
		{"quiet", true, output.Options{Mode: choice.Paste, PressEnter: true}},
		{"said", false, output.Options{Mode: choice.Paste}}, // Enter only when a send phrase was said
		{"said", true, output.Options{Mode: choice.Paste, PressEnter: true}},
	}
	for _, tt := range tests {
		if got := output.ProfileOptions(cfg, tt.profile, tt.enter); got != tt.want {
			t.Errorf("pasteOptions(%q, %v) = %+v, want %+v", tt.profile, tt.enter, got, tt.want)
		}
	}
}

func TestChooseMatchesTheFocusedWindow(t *testing.T) {
	cfg := configtest.Load(t, profilesConfig)
	var w config.Window
	var werr error
	flow := dictation.NewFlow(&namedEngine{name: "local"}, nil)
	flow.Configure(cfg, nil, nil, testLog(t))
	tr := dictation.NewChooser(func() (config.Window, error) { return w, werr }, flow, testLog(t))
	tests := []struct {
		w    config.Window
		err  error
		want string
	}{
		{config.Window{Class: "XTerm", Instance: "xterm"}, nil, "term"},
		{config.Window{Class: "Slack", Exe: "slack"}, nil, "chat"},
		{config.Window{Class: "Gedit", Title: "Notes — gedit"}, nil, "quiet"},
		{config.Window{Class: "Gedit"}, nil, ""},
		{config.Window{}, errors.New("no X display"), ""},
	}
	for _, tt := range tests {
		w, werr = tt.w, tt.err
		if got := tr.Choose().Profile(); got != tt.want || tr.Last() != tt.want {
			t.Errorf("Choose() for %+v = %q (last %q), want %q", tt.w, got, tr.Last(), tt.want)
		}
	}
}

// A cleanup server that fails: the dictation goes out as heard, shaped by
// the text settings, with a notice for the user.
func TestDictationKeepsTheTextWhenCleanupFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	cfg := configtest.Load(t, profilesConfig+"cleanup:\n  enabled: true\n  url: "+srv.URL+"\n")
	d := dictation.NewFlow(&namedEngine{name: " um Hello there."}, nil)
	d.Configure(cfg, nil, nil, testLog(t))
	tr, err := d.Transcribe(context.Background(), d.Request("term"), make([]float32, 16000))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(tr.Text) != "um hello there" || tr.Cleanup != "clean" || tr.Notice == "" || tr.Raw != "" {
		t.Errorf("got %+v; want the text as heard in the profile's style, cleanup clean, a notice", tr)
	}
}
