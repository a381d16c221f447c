package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
)

const profilesYAML = `
profiles:
  - name: terminal
    match: {class: [XTerm, kitty]}
    output: {case: lower, strip_final_period: true}
    paste: type
    cleanup: off
  - name: mail
    match: {title: "(?i)inbox|compose"}
    language: de
    vocabulary: [Siobhan]
    replacements:
      - {from: "my mail", to: "anna@example.com"}
    cleanup: polite
  - name: slack
    match: {exe: slack.exe}
    auto_send: true
    spoken_punctuation: true
  - name: both
    match: {class: Alacritty, exe: [kitty]}
  - name: webmail
    match: {class: firefox, title: Gmail}
cleanup:
  enabled: true
  url: http://127.0.0.1:8080
  modes:
    Polite: "Make it polite."
`

func TestProfilesFirstMatchWins(t *testing.T) {
	cfg, warns, err := Load(writeConfig(t, profilesYAML), Options{})
	if err != nil || len(warns) > 0 {
		t.Fatalf("Load: %v, warnings %v", err, warns)
	}
	if got := strings.Join(cfg.Profiles.Names(), ","); got != "terminal,mail,slack,both,webmail" {
		t.Fatalf("names = %q", got)
	}
	tests := []struct {
		name string
		w    Window
		want string // "" for no profile
	}{
		{"class, any case", Window{Class: "xterm", Instance: "xterm"}, "terminal"},
		{"instance", Window{Class: "Kitty-Other", Instance: "KITTY"}, "terminal"},
		{"first of two matches", Window{Class: "XTerm", Title: "Inbox"}, "terminal"},
		{"title regex", Window{Class: "Thunderbird", Title: "Compose: hello"}, "mail"},
		{"exe without .exe, any case", Window{Class: "Chrome_WidgetWin_1", Exe: "Slack.EXE"}, "slack"},
		{"class or exe: either one", Window{Class: "Alacritty", Exe: "kitty"}, "both"},
		{"class and title", Window{Class: "Firefox", Title: "Gmail — Drafts"}, "webmail"},
		{"title without the class", Window{Class: "Chromium", Title: "Gmail — Drafts"}, ""},
		{"class without the title", Window{Class: "Firefox", Title: "News"}, ""},
		{"no match", Window{Class: "Gedit", Title: "notes.txt", Exe: "gedit"}, ""},
		{"unknown window", Window{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := cfg.Profiles.For(tt.w)
			if ok != (tt.want != "") || p.Name != tt.want {
				t.Errorf("For(%+v) = %q, %v; want %q", tt.w, p.Name, ok, tt.want)
			}
		})
	}
}

func TestWithProfileOverridesOnlyWhatItSets(t *testing.T) {
	cfg, _, err := Load(writeConfig(t, profilesYAML+"language: en\nprompt: Hello.\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	term, _ := cfg.Profiles.Find("TERMINAL")
	got := cfg.WithProfile(term)
	if got.Text.Output.Case != CaseLower || !got.Text.Output.StripFinalPeriod || got.Paste != choice.Type ||
		got.Cleanup.ActiveMode() != "" {
		t.Errorf("terminal: %+v %q cleanup %q", got.Text.Output, got.Paste, got.Cleanup.ActiveMode())
	}
	if got.Decode.Language != "en" || got.Decode.Prompt != "Hello." || got.Text.Output.TrailingSpace {
		t.Errorf("terminal changed what it does not set: %+v", got.Decode)
	}
	mail, _ := cfg.Profiles.Find("mail")
	got = cfg.WithProfile(mail)
	if got.Decode.Language != "de" || strings.Join(got.Decode.Vocabulary.Items(), ",") != "Siobhan" ||
		got.Text.Replacements.Items()[0].To != "anna@example.com" || got.Cleanup.ActiveMode() != "polite" {
		t.Errorf("mail: %+v %+v cleanup %q", got.Decode, got.Text, got.Cleanup.ActiveMode())
	}
	if got.Cleanup.CleanupModes()["polite"] != "Make it polite." {
		t.Errorf("user mode lost: %v", got.Cleanup.CleanupModes())
	}
	if cfg.Cleanup.ActiveMode() != "clean" {
		t.Errorf("default mode %q, want clean", cfg.Cleanup.ActiveMode())
	}
	slack, _ := cfg.Profiles.Find("slack")
	if slack.Send == nil || *slack.Send != choice.SendAlways || !cfg.WithProfile(slack).Text.SpokenPunctuation {
		t.Errorf("slack: %+v", slack)
	}
}

func TestProfileErrorsNameProfileAndKey(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // all in the error
	}{
		{"bad regex", "profiles:\n  - name: mail\n    match: {title: \"(Inbox\"}\n",
			[]string{`key "profiles[mail].match.title": "(Inbox" is not allowed`, "regular expression", ":3:"}},
		{"no match", "profiles:\n  - name: chat\n    paste: type\n", []string{`:2: key "profiles[chat].match" is missing`}},
		{"no name", "profiles:\n  - match: {class: xterm}\n", []string{`:2: key "profiles[1].name" is missing`}},
		{"unknown key", "profiles:\n  - name: t\n    match: {class: x}\n    colour: red\n", []string{`:4: key "profiles[t].colour" is not a profile setting`}},
		{"bad case", "profiles:\n  - name: t\n    match: {class: x}\n    output: {case: upper}\n",
			[]string{`:4: key "profiles[t].output.case": "upper" is not allowed (allowed: as_spoken or lower)`}},
		{"bad paste", "profiles:\n  - name: t\n    match: {class: x}\n    paste: shout\n",
			[]string{`:4: key "profiles[t].paste": "shout" is not allowed (allowed: paste, clipboard, paste-enter or type)`}},
		{"bad language", "profiles:\n  - name: t\n    match: {class: x}\n    language: klingon\n", []string{`:4: key "profiles[t].language": "klingon" is not allowed`}},
		{"twice", "profiles:\n  - name: t\n    match: {class: x}\n  - name: T\n    match: {class: y}\n", []string{`:4: key "profiles[T].name": "T"`, "used twice (also on line 2)"}},
		// Every problem at once, each on its own line, none telling to
		// delete the whole list.
		{"all at once", "profiles:\n  - name: term\n    match: {class: xterm}\n    paste: typed\n    case: shouting\n  - name: other\n    match: {}\n    language: klingon\n",
			[]string{`:4: key "profiles[term].paste": "typed"`, `:5: key "profiles[term].case" is not a profile setting`, "put it under output:",
				`:7: key "profiles[other].match" names no window`, `:8: key "profiles[other].language": "klingon"`}},
		{"unknown mode", "profiles:\n  - name: t\n    match: {class: x}\n    cleanup: poetic\n", []string{`profile "t"`, `"cleanup"`, `no mode "poetic"`, "cleanup.modes"}},
		{"not a list", "profiles: terminal\n", []string{`key "profiles"`, "list of profiles"}},
		{"unknown default mode", "cleanup:\n  mode: poetic\n", []string{`key "cleanup.mode"`, "no such mode"}},
		{"bad cleanup url", "cleanup:\n  url: ftp://x\n", []string{`key "cleanup.url"`, "http://"}},
		{"mode named off", "cleanup:\n  modes: {off: \"x\"}\n", []string{`key "cleanup.modes"`, "cannot be a mode name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load(writeConfig(t, tt.yaml), Options{})
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tt.name != "not a list" && strings.Contains(err.Error(), "remove the line to use []") {
				t.Errorf("error %q tells to delete every profile", err)
			}
		})
	}
}

func TestProfilesShowAndHideCleanupKey(t *testing.T) {
	path := writeConfig(t, profilesYAML+"  api_key: sk-secret-123\n")
	var out, errOut strings.Builder
	if code := RunCLI([]string{"show"}, &out, &errOut, path, Options{}); code != 0 {
		t.Fatalf("show: %d %s", code, errOut.String())
	}
	if strings.Contains(out.String(), "sk-secret-123") {
		t.Error("config show printed the cleanup key")
	}
	for _, w := range []string{"name: terminal", "title: (?i)inbox|compose", "polite: Make it polite."} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("config show lacks %q:\n%s", w, out.String())
		}
	}
	// What show prints loads back to the same settings.
	cfg, _, err := Load(writeConfig(t, strings.ReplaceAll(out.String(), "(set, not shown)", "sk-secret-123")), Options{})
	want, _, _ := Load(path, Options{})
	if err != nil || cfg != want {
		t.Errorf("show's output reloads as %+v, %v; want %+v", cfg.Profiles, err, want.Profiles)
	}
}
