package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Keys of per-app profiles.
const (
	KeyProfiles = "profiles"

	profilesDocAnchor = "docs/configuration.md#profiles"
)

// Window is what is known of the window a dictation goes to: the window
// focused when the record key went down.
type Window struct {
	Class    string // X11 WM_CLASS class ("XTerm"); Windows: the window class
	Instance string // X11 WM_CLASS instance ("xterm"); "" elsewhere
	Title    string
	Exe      string // the executable's file name ("slack.exe", "kitty"); "" when unknown
}

// Match says which windows a profile is for: those whose class or program is
// listed (either one; a list matches when any entry does) and, when Title is
// set, whose title it finds.
type Match struct {
	// Class holds X11 WM_CLASS names (class or instance, any case) or Windows
	// window classes.
	Class []string `json:"class,omitempty"`
	// Exe holds executable names, any case, ".exe" optional ("slack" matches "Slack.exe").
	Exe []string `json:"exe,omitempty"`
	// Title is a regular expression searched in the window title.
	Title string `json:"title,omitempty"`
}

// Profile is one entry of profiles: the windows it is for and the settings
// it overrides for a dictation into them. A nil override keeps the default.
type Profile struct {
	Name              string            `json:"name"`
	Match             Match             `json:"match"`
	Language          *string           `json:"language,omitempty"`
	Vocabulary        *[]string         `json:"vocabulary,omitempty"`
	Prompt            *string           `json:"prompt,omitempty"`
	Replacements      *[]Replacement    `json:"replacements,omitempty"`
	SpokenPunctuation *bool             `json:"spoken_punctuation,omitempty"`
	Case              *string           `json:"case,omitempty"`
	TrailingSpace     *bool             `json:"trailing_space,omitempty"`
	StripFinalPeriod  *bool             `json:"strip_final_period,omitempty"`
	Paste             *choice.PasteMode `json:"paste,omitempty"`
	Send              *choice.SendMode  `json:"send,omitempty"`    // Config.Send; the old auto_send is read into it
	Cleanup           *string           `json:"cleanup,omitempty"` // a cleanup mode or CleanupOff
}

// Profiles is the ordered, immutable list of profiles; a value, so Config
// stays comparable with ==.
type Profiles struct{ encoded string }

// NewProfiles returns the list ps. The profiles must be valid (Load checks
// the ones from the file).
func NewProfiles(ps ...Profile) Profiles {
	if len(ps) == 0 {
		return Profiles{}
	}
	b, err := json.Marshal(ps)
	if err != nil {
		panic(fmt.Sprintf("config: encode profiles: %v", err)) // plain data always encodes
	}
	return Profiles{encoded: string(b)}
}

// Items returns a fresh copy of the profiles, in order.
func (p Profiles) Items() []Profile {
	if p.encoded == "" {
		return nil
	}
	var ps []Profile
	if err := json.Unmarshal([]byte(p.encoded), &ps); err != nil {
		panic(fmt.Sprintf("config: decode profiles: %v", err)) // written by NewProfiles
	}
	return ps
}

// Names lists the profiles' names in order.
func (p Profiles) Names() []string {
	var names []string
	for _, x := range p.Items() {
		names = append(names, x.Name)
	}
	return names
}

// Find returns the profile called name (any case).
func (p Profiles) Find(name string) (Profile, bool) {
	for _, x := range p.Items() {
		if strings.EqualFold(x.Name, name) {
			return x, true
		}
	}
	return Profile{}, false
}

// For returns the first profile whose match fits w; false when none does.
func (p Profiles) For(w Window) (Profile, bool) {
	for _, x := range p.Items() {
		if x.Match.fits(w) {
			return x, true
		}
	}
	return Profile{}, false
}

func (m Match) fits(w Window) bool {
	if len(m.Class) == 0 && len(m.Exe) == 0 && m.Title == "" {
		return false
	}
	exe := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), ".exe") }
	byClass := slices.ContainsFunc(m.Class, func(c string) bool {
		return c != "" && (strings.EqualFold(c, w.Class) || strings.EqualFold(c, w.Instance))
	})
	byExe := w.Exe != "" && slices.ContainsFunc(m.Exe, func(e string) bool { return e != "" && exe(e) == exe(w.Exe) })
	if (len(m.Class) > 0 || len(m.Exe) > 0) && !byClass && !byExe {
		return false
	}
	if m.Title != "" {
		re, err := regexp.Compile(m.Title)
		if err != nil || !re.MatchString(w.Title) { // Load compiled it; a bad one matches nothing
			return false
		}
	}
	return true
}

// set overrides *dst with *v when the profile holds the setting.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// deref is the setting a profile holds, or the zero value.
func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}

// WithProfile returns c with p's overrides applied, for one dictation.
func (c Config) WithProfile(p Profile) Config {
	set(&c.Decode.Language, p.Language)
	set(&c.Decode.Prompt, p.Prompt)
	if p.Vocabulary != nil {
		c.Decode.Vocabulary = NewList(*p.Vocabulary...)
	}
	if p.Replacements != nil {
		c.Text.Replacements = NewReplacements(*p.Replacements...)
	}
	set(&c.Text.SpokenPunctuation, p.SpokenPunctuation)
	set(&c.Text.Output.Case, p.Case)
	set(&c.Text.Output.TrailingSpace, p.TrailingSpace)
	set(&c.Text.Output.StripFinalPeriod, p.StripFinalPeriod)
	set(&c.Paste, p.Paste)
	set(&c.Cleanup.Mode, p.Cleanup)
	return c
}

// profileKeys are the keys a profile may hold, as written in the file.
var profileKeys = []string{"name", "match", "language", "vocabulary", "prompt", "replacements",
	"spoken_punctuation", "output", "paste", "send", "cleanup"}

// toProfiles reads the YAML list of profiles; the error names the profile and key.
func toProfiles(raw any) (Profiles, error) {
	if s, isText := raw.(string); isText && strings.TrimSpace(s) == "" {
		return Profiles{}, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return Profiles{}, errors.New("it must be a list of profiles, each with a name and a match")
	}
	var ps []Profile
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return Profiles{}, fmt.Errorf("entry %d is not a profile (name: …, match: …)", i+1)
		}
		p, err := toProfile(m)
		if err != nil {
			what := fmt.Sprintf("entry %d", i+1)
			if p.Name != "" {
				what = fmt.Sprintf("profile %q", p.Name)
			}
			return Profiles{}, fmt.Errorf("%s: %w", what, err)
		}
		for _, q := range ps {
			if strings.EqualFold(q.Name, p.Name) {
				return Profiles{}, fmt.Errorf("profile %q: the name is used twice; give each profile its own", p.Name)
			}
		}
		ps = append(ps, p)
	}
	return NewProfiles(ps...), nil
}

func toProfile(m map[string]any) (Profile, error) {
	var p Profile
	m = lowerKeys(m)
	if n, ok := m["name"].(string); ok {
		p.Name = strings.TrimSpace(n)
	}
	if p.Name == "" || strings.ContainsAny(p.Name, "\r\n\t") {
		return p, errors.New(`key "name": each profile needs a name on one line, such as name: terminal`)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first problem reported is the same every time
	for _, k := range keys {
		if err := p.set(k, m[k]); err != nil {
			return p, fmt.Errorf("key %q: %w", k, err)
		}
	}
	if len(p.Match.Class) == 0 && len(p.Match.Exe) == 0 && p.Match.Title == "" {
		return p, errors.New(`key "match": say which windows it is for, with class, exe or title, such as match: {class: [kitty, XTerm]}`)
	}
	return p, nil
}

func (p *Profile) set(k string, v any) error {
	text := func(dst **string, check func(string) bool) error {
		s, ok := scalarString(v)
		if !ok || (check != nil && !check(s)) {
			return errNotAllowed
		}
		*dst = &s
		return nil
	}
	flag := func(dst **bool) error {
		b, ok := toBool(v)
		if !ok {
			return errors.New("use true or false")
		}
		*dst = &b
		return nil
	}
	switch k {
	case "name":
		return nil
	case "match":
		return p.setMatch(v)
	case "language":
		if err := text(&p.Language, func(s string) bool { return checkLanguage(s, Options{}) == nil }); err != nil {
			return fmt.Errorf("use auto or a Whisper language code such as en, de, fr (%s)", languageDocAnchor)
		}
	case "vocabulary":
		l, err := toList(v)
		if err != nil {
			return err
		}
		items := l.Items()
		p.Vocabulary = &items
	case "prompt":
		return text(&p.Prompt, nil)
	case "replacements":
		r, err := toReplacements(v)
		if err != nil {
			return err
		}
		items := r.Items()
		p.Replacements = &items
	case "spoken_punctuation":
		return flag(&p.SpokenPunctuation)
	case "send", "auto_send":
		m, err := toSendMode(k, v)
		if err != nil {
			return err
		}
		if k == "send" || p.Send == nil { // send wins over its old name
			p.Send = &m
		}
	case "paste":
		s, ok := scalarString(v)
		if m := choice.PasteMode(s); ok && m.Valid() {
			p.Paste = &m
			return nil
		}
		modes := make([]string, len(choice.PasteModes()))
		for i, m := range choice.PasteModes() {
			modes[i] = string(m)
		}
		last := len(modes) - 1
		return fmt.Errorf("use %s or %s", strings.Join(modes[:last], ", "), modes[last])
	case "cleanup":
		if err := text(&p.Cleanup, func(s string) bool { return s != "" && !strings.ContainsAny(s, " \t\r\n") }); err != nil {
			return fmt.Errorf("use %s or the name of a cleanup mode such as %s", CleanupOff, strings.Join(builtinModeNames(), ", "))
		}
		*p.Cleanup = strings.ToLower(*p.Cleanup)
	case "output":
		return p.setOutput(v)
	default:
		return fmt.Errorf("is not a profile setting (a profile holds %s)", strings.Join(profileKeys, ", "))
	}
	return nil
}

func (p *Profile) setOutput(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("it must hold case, trailing_space or strip_final_period")
	}
	for k, x := range lowerKeys(m) {
		switch k {
		case "case":
			s, ok := scalarString(x)
			if !ok || (s != CaseAsSpoken && s != CaseLower) {
				return fmt.Errorf("output.case: use %s or %s", CaseAsSpoken, CaseLower)
			}
			p.Case = &s
		case "trailing_space", "strip_final_period":
			b, ok := toBool(x)
			if !ok {
				return fmt.Errorf("output.%s: use true or false", k)
			}
			if k == "trailing_space" {
				p.TrailingSpace = &b
			} else {
				p.StripFinalPeriod = &b
			}
		default:
			return fmt.Errorf("output.%s is not an output setting (case, trailing_space, strip_final_period)", k)
		}
	}
	return nil
}

func (p *Profile) setMatch(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("it must hold class, exe or title, such as match: {class: kitty}")
	}
	for k, x := range lowerKeys(m) {
		switch k {
		case "class", "exe":
			l, err := toList(x)
			if err != nil {
				return fmt.Errorf("match.%s: %w", k, err)
			}
			if k == "class" {
				p.Match.Class = l.Items()
			} else {
				p.Match.Exe = l.Items()
			}
		case "title":
			s, ok := scalarString(x)
			if !ok {
				return errors.New("match.title: it must be a regular expression on one line")
			}
			if _, err := regexp.Compile(s); err != nil {
				return fmt.Errorf("match.title %q is not a valid regular expression: %w", s, err)
			}
			p.Match.Title = s
		default:
			return fmt.Errorf("match.%s is not a match criterion (class, exe, title)", k)
		}
	}
	return nil
}

func scalarString(v any) (string, bool) {
	switch r := v.(type) {
	case string:
		return r, !strings.ContainsRune(r, 0)
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(r), true
	case nil:
		return "", true
	}
	return "", false
}

func lowerKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = v
	}
	return out
}

// renderProfiles writes p as the file holds it.
func renderProfiles(p Profiles) []any {
	out := []any{}
	for _, x := range p.Items() {
		m := map[string]any{"name": x.Name}
		match := map[string]any{}
		if len(x.Match.Class) > 0 {
			match["class"] = x.Match.Class
		}
		if len(x.Match.Exe) > 0 {
			match["exe"] = x.Match.Exe
		}
		if x.Match.Title != "" {
			match["title"] = x.Match.Title
		}
		m["match"] = match
		put := func(k string, v any, set bool) {
			if set {
				m[k] = v
			}
		}
		put("language", deref(x.Language), x.Language != nil)
		if x.Vocabulary != nil {
			m["vocabulary"] = *x.Vocabulary
		}
		put("prompt", deref(x.Prompt), x.Prompt != nil)
		if x.Replacements != nil {
			m["replacements"] = renderReplacements(NewReplacements(*x.Replacements...))
		}
		if x.SpokenPunctuation != nil {
			m["spoken_punctuation"] = *x.SpokenPunctuation
		}
		style := map[string]any{}
		if x.Case != nil {
			style["case"] = *x.Case
		}
		if x.TrailingSpace != nil {
			style["trailing_space"] = *x.TrailingSpace
		}
		if x.StripFinalPeriod != nil {
			style["strip_final_period"] = *x.StripFinalPeriod
		}
		if len(style) > 0 {
			m["output"] = style
		}
		put("paste", string(deref(x.Paste)), x.Paste != nil)
		put("send", string(deref(x.Send)), x.Send != nil)
		put("cleanup", deref(x.Cleanup), x.Cleanup != nil)
		out = append(out, m)
	}
	return out
}
