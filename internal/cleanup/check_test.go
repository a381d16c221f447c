package cleanup

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	const raw = "um so I think we should uh meet on Tuesday"
	tests := []struct {
		name, answer string
		want         string // "" when the answer must be rejected
	}{
		{"plain rewrite", "I think we should meet on Tuesday.", "I think we should meet on Tuesday."},
		{"code fence", "```\nI think we should meet on Tuesday.\n```", "I think we should meet on Tuesday."},
		{"fence with language", "```text\nSo I think we should meet on Tuesday.\n```", "So I think we should meet on Tuesday."},
		{"preamble", "Here is the cleaned text:\nI think we should meet on Tuesday.", "I think we should meet on Tuesday."},
		{"sure preamble and quotes", "Sure! Here's the rewritten version:\n\n\"I think we should meet on Tuesday.\"", "I think we should meet on Tuesday."},
		{"label", "Cleaned text: I think we should meet on Tuesday.", "I think we should meet on Tuesday."},
		{"empty", "  \n ", ""},
		{"refusal", "I'm sorry, but I can't help with that.", ""},
		{"unrelated paragraph", "Tuesday is named after the Norse god Tyr. In many languages the day's name comes from a god of war, and calendars have kept it for centuries.", ""},
		{"reply instead of rewrite", "Sounds good! What time works for you?", ""},
		{"another script", "Я думаю, нам стоит встретиться во вторник.", ""},
		{"another language", "Ich denke, wir sollten uns am Dienstag treffen.", ""},
		{"far longer", "I think we should meet on Tuesday. " + "We should really meet on Tuesday, I think. " + "Tuesday is when we should meet, I think, we should. ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(raw, tt.answer)
			if tt.want == "" {
				if !errors.Is(err, ErrNotRewrite) {
					t.Errorf("Check(%q) = %q, %v; want ErrNotRewrite", tt.answer, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Check(%q) = %q, %v; want %q", tt.answer, got, err, tt.want)
			}
		})
	}
}

func TestCheckKeepsListsAndOtherLanguagesAsDictated(t *testing.T) {
	tests := []struct{ raw, answer string }{
		{"we need eggs milk and bread", "We need:\n- eggs\n- milk\n- bread"},
		{"äh ich glaube wir sollten uns am Dienstag treffen", "Ich glaube, wir sollten uns am Dienstag treffen."},
		{"えーと火曜日に会いましょう", "火曜日に会いましょう。"},
		{"ok", "OK."},
		{"here is my plan colon we ship on Friday", "Here is my plan: we ship on Friday."},
	}
	for _, tt := range tests {
		if got, err := Check(tt.raw, tt.answer); err != nil || got != tt.answer {
			t.Errorf("Check(%q, %q) = %q, %v; want the answer kept", tt.raw, tt.answer, got, err)
		}
	}
}

func TestEndpoint(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434/v1/chat/completions"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/chat/completions"},
		{"https://api.example.com/v1", "https://api.example.com/v1/chat/completions"},
		{"http://h:1/openai/v1/chat/completions", "http://h:1/openai/v1/chat/completions"},
	}
	for _, tt := range tests {
		if got, err := Endpoint(tt.in); err != nil || got != tt.want {
			t.Errorf("Endpoint(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://h/", "http://"} {
		if _, err := Endpoint(bad); err == nil {
			t.Errorf("Endpoint(%q) accepted", bad)
		}
	}
}
