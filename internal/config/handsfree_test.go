package config

import (
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

const sendYAML = `
profiles:
  - name: chat
    match: {class: Slack}
    send: when_said
  - name: term
    match: {class: XTerm}
    send: never
  - name: always
    match: {class: Mail}
    send: ALWAYS
  - name: enter
    match: {class: Other}
    paste: paste-enter
  - name: old
    match: {class: Old}
    auto_send: true
  - name: oldoff
    match: {class: OldOff}
    auto_send: false
    send: when_said
`

func TestSendModeOfEachProfile(t *testing.T) {
	cfg, _, err := Load(writeConfig(t, sendYAML), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		profile string
		want    choice.SendMode
	}{
		{"", choice.SendWhenSaid},
		{"chat", choice.SendWhenSaid},
		{"term", choice.SendNever},
		{"always", choice.SendAlways},
		{"enter", choice.SendAlways}, // paste-enter means always
		{"old", choice.SendAlways},   // the old auto_send: true
		{"oldoff", choice.SendWhenSaid},
		{"gone", choice.SendWhenSaid},
	}
	for _, tt := range tests {
		if got := cfg.Send(tt.profile); got != tt.want {
			t.Errorf("Send(%q) = %q, want %q", tt.profile, got, tt.want)
		}
	}
	pasteEnter, _, err := Load(writeConfig(t, sendYAML+"paste: paste-enter\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pasteEnter.Send(""); got != choice.SendAlways {
		t.Errorf("Send with paste: paste-enter = %q, want always", got)
	}
	// A profile written back keeps its mode under the new name.
	p, _ := cfg.Profiles.Find("old")
	if m := renderProfiles(NewProfiles(p))[0].(map[string]any); m["send"] != "always" || m["auto_send"] != nil {
		t.Errorf("rendered %v, want send: always", m)
	}
}

func TestSentByOnlyTheExactPhraseAtTheEnd(t *testing.T) {
	cfg, _, err := Load(writeConfig(t, sendYAML+"commands:\n  send: [send it, press enter, abschicken]\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, profile, text, rest string
		said                      bool
	}{
		{"own sentence at the end", "", " See you at noon. Send it.", " See you at noon.", true},
		{"no final punctuation, other case", "", "See you at noon! SEND IT", "See you at noon!", true},
		{"second phrase", "chat", "Deploy the fix; press enter!", "Deploy the fix;", true},
		{"another language", "", "Bis morgen. Abschicken.", "Bis morgen.", true},
		{"after a new line", "", "Line one\nsend it", "Line one", true},
		{"part of a sentence", "", "I will send it.", "I will send it.", false},
		{"after a comma", "", "If it looks fine, send it.", "If it looks fine, send it.", false},
		{"the whole utterance", "", "Send it.", "Send it.", false},
		{"not at the end", "", "Send it. Then call me.", "Send it. Then call me.", false},
		{"a longer word", "", "See you. Send items.", "See you. Send items.", false},
		{"profile never", "term", "ls -la. Press enter.", "ls -la. Press enter.", false},
		{"profile always removes it too", "always", "Thanks. Send it.", "Thanks.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, said := cfg.SentBy(tt.profile, tt.text)
			if rest != tt.rest || said != tt.said {
				t.Errorf("SentBy(%q, %q) = %q, %v; want %q, %v", tt.profile, tt.text, rest, said, tt.rest, tt.said)
			}
		})
	}
	off, _, err := Load(writeConfig(t, "commands:\n  send: []\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, said := off.SentBy("", "Thanks. Send it."); said {
		t.Error("commands.send: [] still sends")
	}
}

func TestHandsFreeKeysChecked(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       string // "" accepts
	}{
		{"off", "hotkeys:\n  stop_after_silence: 0\n", ""},
		{"two seconds", "hotkeys:\n  stop_after_silence: 2s\n  mode: toggle\n", ""},
		{"too short", "hotkeys:\n  stop_after_silence: 100ms\n", `key "hotkeys.stop_after_silence": "100ms" is not allowed (allowed: 0 to turn it off, or a duration from 500ms to 1m`},
		{"too long", "hotkeys:\n  stop_after_silence: 2m\n", `is not allowed`},
		{"not a duration", "hotkeys:\n  stop_after_silence: soon\n", `fix: set hotkeys.stop_after_silence to 0 or such a duration`},
		{"long phrase", "commands:\n  send: [please send this message right now]\n", `has 6 words; a send phrase has at most 5`},
		{"twice", "commands:\n  send: [Send it, send it!]\n", `is listed twice`},
		{"bad profile send", "profiles:\n  - name: x\n    match: {class: X}\n    send: sometimes\n", `key "profiles[x].send": "sometimes" is not allowed (allowed: never, when_said or always`},
		{"bad old auto_send", "profiles:\n  - name: x\n    match: {class: X}\n    auto_send: maybe\n", `(allowed: true or false (or send: never, when_said or always, its new name))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := loadWant(t, tt.yaml, Options{}, tt.want)
			if tt.name == "two seconds" && cfg.Hotkeys.HandsFree() != 2*time.Second {
				t.Errorf("HandsFree = %v, want 2s in toggle mode", cfg.Hotkeys.HandsFree())
			}
		})
	}
	hold := Defaults()
	hold.Hotkeys.StopAfterSilence = 2 * time.Second
	if d := hold.Hotkeys.HandsFree(); d != 0 {
		t.Errorf("HandsFree in hold mode = %v, want 0: the release ends it", d)
	}
	if d := Defaults().Hotkeys.StopAfterSilence; d != 0 {
		t.Errorf("stop_after_silence default %v, want off", d)
	}
}
