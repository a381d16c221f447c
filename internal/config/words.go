package config

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Keys of the vocabulary, prompt and text-shaping settings.
const (
	KeyVocabulary        = "vocabulary"
	KeyPrompt            = "prompt"
	KeyReplacements      = "replacements"
	KeySpokenPunctuation = "spoken_punctuation"
	KeyTrailingSpace     = "output.trailing_space"
	KeyStripFinalPeriod  = "output.strip_final_period"
	KeyCase              = "output.case"

	CaseAsSpoken = "as_spoken"
	CaseLower    = "lower"

	wordsDocAnchor = "docs/configuration.md#your-words"
)

// Text holds what is done to the transcript between recognition and paste.
type Text struct {
	Replacements      Replacements
	SpokenPunctuation bool
	Output            Output
}

// Output is the style of the pasted text.
type Output struct {
	TrailingSpace    bool
	StripFinalPeriod bool
	Case             string // CaseAsSpoken or CaseLower
}

// List is an immutable list of strings. It is a value (not a slice), so a
// Config stays comparable with == and no holder can change another's copy.
type List struct{ joined string }

// NewList returns a List of items; empty items are dropped.
func NewList(items ...string) List {
	var keep []string
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			keep = append(keep, s)
		}
	}
	return List{joined: strings.Join(keep, "\x00")}
}

// Items returns a fresh copy of the entries.
func (l List) Items() []string {
	if l.joined == "" {
		return nil
	}
	return strings.Split(l.joined, "\x00")
}

// Replacement is one entry of replacements: From (a word or phrase, matched
// case-insensitively as whole words) becomes To.
type Replacement struct{ From, To string }

// Replacements is an immutable, ordered list of Replacement; comparable like List.
type Replacements struct{ joined string }

// NewReplacements returns the list rs.
func NewReplacements(rs ...Replacement) Replacements {
	parts := make([]string, 0, 2*len(rs))
	for _, r := range rs {
		parts = append(parts, r.From, r.To)
	}
	return Replacements{joined: strings.Join(parts, "\x00")}
}

// Items returns a fresh copy of the entries, in order.
func (r Replacements) Items() []Replacement {
	if r.joined == "" {
		return nil
	}
	parts := strings.Split(r.joined, "\x00")
	out := make([]Replacement, 0, len(parts)/2)
	for i := 0; i+1 < len(parts); i += 2 {
		out = append(out, Replacement{From: parts[i], To: parts[i+1]})
	}
	return out
}

func renamed(f field, to string) field {
	f.renamedTo = to
	return f
}

func wordsFields() []field {
	return []field{
		{key: KeyVocabulary, ptr: func(c *Config) any { return &c.Decode.Vocabulary },
			allowed: `a list of words and phrases, or one line of them separated by commas (see ` + wordsDocAnchor + `)`, hint: "a list of words"},
		textField(KeyPrompt, func(c *Config) any { return &c.Decode.Prompt }),
		{key: KeyReplacements, ptr: func(c *Config) any { return &c.Text.Replacements },
			allowed: `a list of entries like {from: "comfy ui", to: "ComfyUI"} (see ` + wordsDocAnchor + `)`, hint: "such a list"},
		boolField(KeySpokenPunctuation, func(c *Config) any { return &c.Text.SpokenPunctuation }),
		boolField(KeyTrailingSpace, func(c *Config) any { return &c.Text.Output.TrailingSpace }),
		boolField(KeyStripFinalPeriod, func(c *Config) any { return &c.Text.Output.StripFinalPeriod }),
		enumField(KeyCase, func(c *Config) *string { return &c.Text.Output.Case }, CaseAsSpoken, CaseLower),
	}
}

// toList reads a YAML list of words or one comma-separated line (as the
// environment gives it).
func toList(raw any) (List, error) {
	switch r := raw.(type) {
	case string:
		return NewList(strings.Split(r, ",")...), nil
	case []string:
		return NewList(r...), nil
	case []any:
		items := make([]string, 0, len(r))
		for i, x := range r {
			switch v := x.(type) {
			case string:
				if strings.ContainsRune(v, 0) {
					return List{}, fmt.Errorf("entry %d holds a NUL character", i+1)
				}
				items = append(items, v)
			case int, int64, uint64, float64, bool:
				items = append(items, fmt.Sprint(v))
			default:
				return List{}, fmt.Errorf("entry %d is not a word or phrase", i+1)
			}
		}
		return NewList(items...), nil
	}
	return List{}, errors.New("it must be a list")
}

// toReplacements reads a YAML list of {from, to} mappings.
func toReplacements(raw any) (Replacements, error) {
	if def, ok := raw.([]map[string]string); ok { // the default, as render wrote it
		list := make([]any, 0, len(def))
		for _, m := range def {
			list = append(list, map[string]any{"from": m["from"], "to": m["to"]})
		}
		raw = list
	}
	list, ok := raw.([]any)
	if !ok {
		if s, isText := raw.(string); isText && strings.TrimSpace(s) == "" {
			return Replacements{}, nil
		}
		return Replacements{}, errors.New("it must be a list of {from, to} entries")
	}
	rs := make([]Replacement, 0, len(list))
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return Replacements{}, fmt.Errorf("entry %d is not a {from, to} pair", i+1)
		}
		var r Replacement
		for k, v := range m {
			s, isText := v.(string)
			if !isText {
				if v == nil {
					s = ""
				} else {
					s = fmt.Sprint(v)
				}
			}
			if strings.ContainsRune(s, 0) {
				return Replacements{}, fmt.Errorf("entry %d holds a NUL character", i+1)
			}
			switch strings.ToLower(k) {
			case "from":
				r.From = s
			case "to":
				r.To = s
			default:
				return Replacements{}, fmt.Errorf("entry %d has the key %q; an entry has only from and to", i+1, k)
			}
		}
		if strings.TrimSpace(r.From) == "" {
			return Replacements{}, fmt.Errorf("entry %d has no from (the word or phrase to replace)", i+1)
		}
		rs = append(rs, r)
	}
	return NewReplacements(rs...), nil
}

// renderReplacements writes r as the file holds it.
func renderReplacements(r Replacements) []map[string]string {
	out := []map[string]string{}
	for _, x := range r.Items() {
		out = append(out, map[string]string{"from": x.From, "to": x.To})
	}
	return out
}

// migrateWords folds the old keys initial_prompt and hotwords into prompt and
// vocabulary, which replaced them. Both spellings of one setting is an error:
// which one the user meant is not clear.
func migrateWords(path string, c *Config, locs map[string]loc) ([]Warning, []error) {
	var warns []Warning
	var errs []error
	pairs := []struct {
		old, now string
		oldSet   bool
		nowSet   bool
		move     func()
	}{
		{KeyInitialPrompt, KeyPrompt, strings.TrimSpace(c.Decode.InitialPrompt) != "", strings.TrimSpace(c.Decode.Prompt) != "",
			func() { c.Decode.Prompt = c.Decode.InitialPrompt }},
		{KeyHotwords, KeyVocabulary, strings.TrimSpace(c.Decode.Hotwords) != "", c.Decode.Vocabulary != List{},
			func() { c.Decode.Vocabulary = NewList(strings.Split(c.Decode.Hotwords, ",")...) }},
	}
	for _, p := range pairs {
		switch {
		case p.oldSet && p.nowSet:
			errs = append(errs, &Error{File: path, Line: locs[p.old].line, Key: p.old,
				Reason: fmt.Sprintf("is the old name of %s, and both are set", p.now),
				Fix:    fmt.Sprintf("move what %s holds into %s and delete the %s line", p.old, p.now, p.old)})
		case p.oldSet:
			p.move()
			warns = append(warns, Warning{File: path, Line: locs[p.old].line, Key: p.old,
				Note: fmt.Sprintf("key %q is now called %q; it still works, but rename it", p.old, p.now)})
		}
	}
	return warns, errs
}

// encodeValue is yaml's Node.Encode, except that replacements are written one
// {from, to} per line with double quotes, which is how they read best and
// keeps a "\n" in them visible (yaml.v3 also fails on a value that starts with one).
func encodeValue(v any) (*yaml.Node, error) {
	rs, ok := v.([]map[string]string)
	if !ok {
		n := &yaml.Node{}
		return n, n.Encode(v)
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if len(rs) == 0 {
		seq.Style = yaml.FlowStyle
	}
	for _, r := range rs {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
		for _, k := range []string{"from", "to"} {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: r[k], Style: yaml.DoubleQuotedStyle})
		}
		seq.Content = append(seq.Content, m)
	}
	return seq, nil
}
