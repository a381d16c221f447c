package config

import (
	"strings"
	"testing"
)

func TestWordsKeys(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want func(*Config)
	}{
		{"vocabulary list", "vocabulary:\n  - ComfyUI\n  - Kubernetes\n  - New York City\n",
			nil, func(c *Config) { c.Decode.Vocabulary = NewList("ComfyUI", "Kubernetes", "New York City") }},
		{"vocabulary line", "vocabulary: ComfyUI,  Kubernetes ,",
			nil, func(c *Config) { c.Decode.Vocabulary = NewList("ComfyUI", "Kubernetes") }},
		{"vocabulary numbers are words", "vocabulary: [R2D2, 1984]",
			nil, func(c *Config) { c.Decode.Vocabulary = NewList("R2D2", "1984") }},
		{"vocabulary from the environment", "",
			map[string]string{"WHISPERKEY_VOCABULARY": "Siobhan, Aoife"}, func(c *Config) { c.Decode.Vocabulary = NewList("Siobhan", "Aoife") }},
		{"replacements in order, newline kept", "replacements:\n  - {from: comfy ui, to: ComfyUI}\n  - from: sign off\n    to: \"\\nBest,\\nAnna\"\n  - {from: um, to: \"\"}\n",
			nil, func(c *Config) {
				c.Text.Replacements = NewReplacements(Replacement{"comfy ui", "ComfyUI"}, Replacement{"sign off", "\nBest,\nAnna"}, Replacement{"um", ""})
			}},
		{"spoken punctuation", "spoken_punctuation: true", nil, func(c *Config) { c.Text.SpokenPunctuation = true }},
		{"output", "output:\n  trailing_space: yes\n  strip_final_period: true\n  case: lower\n",
			nil, func(c *Config) { c.Text.Output = Output{TrailingSpace: true, StripFinalPeriod: true, Case: CaseLower} }},
		{"output from the environment", "",
			map[string]string{"WHISPERKEY_OUTPUT_CASE": "lower"}, func(c *Config) { c.Text.Output.Case = CaseLower }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			checkLoads(t, tt.yaml, Options{}, tt.want)
		})
	}
}

func TestWordsKeysRejected(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"replacement without from", "replacements:\n  - {to: x}", `{file}:2: key "replacements": "[…]" is not allowed: entry 1 has no from (the word or phrase to replace)`},
		{"replacement with another key", "replacements:\n  - {from: a, too: b}", `entry 1 has the key "too"; an entry has only from and to`},
		{"replacement not a pair", "replacements:\n  - just text", `entry 1 is not a {from, to} pair`},
		{"replacements not a list", "replacements: comfy ui", `it must be a list of {from, to} entries`},
		{"vocabulary nested", "vocabulary:\n  - [a, b]", `entry 1 is not a word or phrase`},
		{"case", "output:\n  case: upper", `key "output.case": "upper" is not allowed (allowed: as_spoken, lower)`},
		{"output not a group", "output: lower", `key "output": "lower" is not allowed (allowed: a group of keys: trailing_space, strip_final_period, case)`},
		{"spoken punctuation", "spoken_punctuation: sometimes", `key "spoken_punctuation": "sometimes" is not allowed (allowed: true, false)`},
		{"old and new name", "prompt: Hi.\ninitial_prompt: Hello.", `{file}:2: key "initial_prompt" is the old name of prompt, and both are set; fix: move what initial_prompt holds into prompt and delete the initial_prompt line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.yaml)
			got, _, err := Load(path, Options{})
			want := strings.ReplaceAll(tt.want, "{file}", path)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v\nwant one line containing %s", err, want)
			}
			if got != Defaults() {
				t.Errorf("a rejected file must give the defaults, got %+v", got)
			}
		})
	}
}

// TestOldWordsKeysMigrate: initial_prompt and hotwords keep working, moved to
// prompt and vocabulary, with a warning that says to rename them.
func TestOldWordsKeysMigrate(t *testing.T) {
	path := writeConfig(t, "initial_prompt: \"Hello, Anna.\"\nhotwords: [ROCm, CUDA]\n")
	got, warns, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Decode.Prompt != "Hello, Anna." || got.Decode.Vocabulary != NewList("ROCm", "CUDA") {
		t.Errorf("prompt %q, vocabulary %q: the old keys were not moved", got.Decode.Prompt, got.Decode.Vocabulary.Items())
	}
	want := []string{
		path + `:1: key "initial_prompt" is now called "prompt"; it still works, but rename it`,
		path + `:2: key "hotwords" is now called "vocabulary"; it still works, but rename it`,
	}
	if len(warns) != 2 || warns[0].String() != want[0] || warns[1].String() != want[1] {
		t.Errorf("warnings %v\nwant %q", warns, want)
	}
}

func TestListsAreValues(t *testing.T) {
	l := NewList("a", "b")
	items := l.Items()
	items[0] = "changed"
	if l.Items()[0] != "a" || l != NewList("a", " b ") || (List{}) != NewList() || NewList("a") == NewList("b") {
		t.Error("List is not an immutable value")
	}
	r := NewReplacements(Replacement{"x", "y\nz"}, Replacement{"p", ""})
	if got := r.Items(); len(got) != 2 || got[1] != (Replacement{"p", ""}) || got[0].To != "y\nz" {
		t.Errorf("Replacements.Items = %q", got)
	}
}

func TestShowWritesWordsKeys(t *testing.T) {
	c := Defaults()
	c.Decode.Vocabulary = NewList("ComfyUI", "Siobhan")
	c.Text.Replacements = NewReplacements(Replacement{"sign off", "\nBest"})
	out, err := effectiveYAML(c, "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := parse("f.yaml", out, Options{})
	if err != nil || cfg != c {
		t.Fatalf("config show does not load back: %v\n%s", err, out)
	}
}
