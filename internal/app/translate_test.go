package app

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// translatable is a Request whose model translates or says why it cannot.
type translatable struct {
	cannot    string
	translate bool
}

func (r translatable) Profile() string {
	if r.translate {
		return "translated"
	}
	return ""
}

func (r translatable) Translated() (Request, error) {
	if r.cannot != "" {
		return nil, errors.New(r.cannot)
	}
	return translatable{translate: true}, nil
}

func (r translatable) Label() string {
	if r.translate {
		return "→ en"
	}
	return ""
}

type fixedChooser struct{ r Request }

func (c fixedChooser) Choose() Request { return c.r }

// The translate key's press dictates through the translated Request, or
// is refused before the microphone opens, with the model's reason.
func TestTranslateKey(t *testing.T) {
	cases := []struct {
		name       string
		req        Request
		wantPasted string // "" when refused
		wantError  string
	}{
		{"a model that translates", translatable{}, "translated: to translated", ""},
		{"a model that cannot", translatable{cannot: "base.en is an English-only model and cannot translate"}, "",
			"Cannot translate: base.en is an English-only model and cannot translate"},
		{"a Request that knows no translation", profile("x"), "", "Cannot translate: translation is not available here"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{clips: [][]float32{clip(1, 1)}}
			p := &profilePaster{}
			a := New(Config{}, Deps{Recorder: rec, Transcriber: profileEcho{}, Paster: p, Chooser: fixedChooser{c.req}},
				slog.New(slog.NewTextHandler(io.Discard, nil)))
			events := drive(t, a, []Input{{Trigger: TriggerStart, Translate: true}, {Trigger: TriggerStop}})
			if got := strings.Join(p.got, "|"); got != c.wantPasted {
				t.Errorf("pasted %q, want %q", got, c.wantPasted)
			}
			var errs, labels []string
			for _, e := range events {
				switch e.State {
				case Error:
					errs = append(errs, e.Message)
				case Recording:
					labels = append(labels, e.Language)
				}
			}
			if c.wantError == "" {
				if len(errs) > 0 || strings.Join(labels, ",") != "→ en" {
					t.Errorf("errors %q, recording labels %q; want none and \"→ en\"", errs, labels)
				}
				return
			}
			if len(errs) != 1 || errs[0] != c.wantError || len(labels) != 0 {
				t.Errorf("errors %q, recording labels %q; want only %q, before any recording", errs, labels, c.wantError)
			}
		})
	}
}
