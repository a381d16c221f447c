package cleanup

import (
	"errors"
	"testing"
)

// The built-in modes' instructions, as far as the checks read them: clean
// asks for no lines, list does (internal/dictation checks the real ones).
const (
	cleanMode = "Rewrite the user's dictated text: remove filler words, false starts and repetitions; fix punctuation."
	listMode  = "Rewrite the user's dictated text. When the speaker enumerates items, write them as a list with one item per line."
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
			got, err := Check(raw, cleanMode, tt.answer)
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
		{"äh ich glaube wir sollten uns am Dienstag treffen", "Ich glaube, wir sollten uns am Dienstag treffen."},
		{"えーと火曜日に会いましょう", "火曜日に会いましょう。"},
		{"ok", "OK."},
		{"here is my plan colon we ship on Friday", "Here is my plan: we ship on Friday."},
	}
	for _, tt := range tests {
		if got, err := Check(tt.raw, cleanMode, tt.answer); err != nil || got != tt.answer {
			t.Errorf("Check(%q, %q) = %q, %v; want the answer kept", tt.raw, tt.answer, got, err)
		}
	}
	list := "We need:\n- eggs\n- milk\n- bread"
	if got, err := Check("we need eggs milk and bread", listMode, list); err != nil || got != list {
		t.Errorf("list mode: Check = %q, %v; want the list kept", got, err)
	}
}

// TestCheckHostile: what a hostile or confused chat server answers to a
// cleanup is judged as it would be pasted. Controls are gone from the text
// kept; a line break the speaker did not dictate (an Enter under paste: type)
// and a look-alike letter from another script inside a word are refused, as
// the other refusals are; dictated line breaks and text in several scripts,
// as spoken, pass.
func TestCheckHostile(t *testing.T) {
	tests := []struct {
		name, raw, mode, answer string
		want                    string // "" when the answer must be refused
	}{
		{"escapes, BEL, bidi, zero-width and CR-LF are no words", "go forward ten meters", cleanMode,
			"\x1b]0;pwned\aGo forward\u200b ten\u202e meters.\x1b[2J\a\r\n", "Go forward ten meters."},
		{"an OSC's payload is not text", "go forward ten meters", cleanMode,
			"Go forward ten meters.\x1b]0;rm -rf ~\a", "Go forward ten meters."},
		{"an added line with a command", "go forward ten meters", cleanMode, "Go forward ten meters.\nrm -rf ~", ""},
		{"an added CR-LF", "go forward ten meters", cleanMode, "Go forward\r\nten meters.", ""},
		{"a line break kept where the text had one", "first line\nsecond line", cleanMode, "First line.\nSecond line.",
			"First line.\nSecond line."},
		{"a spoken new line written as one", "dear Sam new line thanks for the notes", cleanMode,
			"Dear Sam,\nthanks for the notes.", "Dear Sam,\nthanks for the notes."},
		{"a spoken new paragraph written as two", "dear Sam new paragraph thanks for the notes", cleanMode,
			"Dear Sam,\n\nthanks for the notes.", "Dear Sam,\n\nthanks for the notes."},
		{"one more break than dictated", "dear Sam new line thanks for the notes", cleanMode,
			"Dear Sam,\nthanks for the notes.\nsudo reboot", ""},
		{"a list mode writes lines", "we need eggs milk and bread", listMode, "- eggs\n- milk\n- bread", "- eggs\n- milk\n- bread"},
		{"Cyrillic о inside a Latin word", "go forward ten meters", cleanMode, "Go f\u043erward ten meters.", ""},
		{"Greek ο inside a Latin word", "pay the invoice now", cleanMode, "Pay the inv\u03bfice now.", ""},
		{"a whole look-alike word in Cyrillic", "log in to paypal today", cleanMode,
			"Log in to \u0440\u0430\u0443\u0440\u0430l today.", ""},
		{"a Cyrillic word in a Latin dictation", "send the file today", cleanMode, "Send the file today, \u0434\u0430.", ""},
		{"a mixed word as heard is kept", "the m\u0438x was heard", cleanMode, "The m\u0438x was heard.", "The m\u0438x was heard."},
		{"Russian and English as dictated", "I said привет to Olga and она ответила hello", cleanMode,
			"I said «привет» to Olga, and она ответила «hello».", "I said «привет» to Olga, and она ответила «hello»."},
		{"Japanese with a Latin word", "えーとTシャツを火曜日に買いましょう", cleanMode, "Tシャツを火曜日に買いましょう。", "Tシャツを火曜日に買いましょう。"},
		{"Korean with Han", "음 韓國語 공부를 합시다", cleanMode, "韓國語 공부를 합시다.", "韓國語 공부를 합시다."},
		{"Greek as dictated", "καλημέρα σε όλους εεε", cleanMode, "Καλημέρα σε όλους.", "Καλημέρα σε όλους."},
		{"emoji and accents", "thats great 🎉 see you at the café", cleanMode, "That's great 🎉 See you at the café.",
			"That's great 🎉 See you at the café."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(tt.raw, tt.mode, tt.answer)
			if tt.want == "" {
				if !errors.Is(err, ErrNotRewrite) {
					t.Fatalf("Check(%q, %q) = %q, %v; want ErrNotRewrite", tt.raw, tt.answer, got, err)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Check(%q, %q) = %q, %v; want %q", tt.raw, tt.answer, got, err, tt.want)
			}
		})
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
