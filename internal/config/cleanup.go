package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Keys of the optional AI cleanup.
const (
	KeyCleanupEnabled = "cleanup.enabled"
	KeyCleanupURL     = "cleanup.url"
	KeyCleanupModel   = "cleanup.model"
	KeyCleanupAPIKey  = "cleanup.api_key"
	KeyCleanupTimeout = "cleanup.timeout"
	KeyCleanupMode    = "cleanup.mode"
	KeyCleanupModes   = "cleanup.modes"

	// CleanupOff as a mode sends nothing.
	CleanupOff = "off"

	cleanupDocAnchor = "docs/configuration.md#ai-cleanup"
)

// Cleanup is the optional rewrite of each dictation by a chat model behind an
// OpenAI-compatible /v1/chat/completions endpoint, between recognition and
// the text settings. Off unless Enabled and URL is set.
type Cleanup struct {
	Enabled bool          // the tray's toggle; default false
	URL     string        // the server: http://host:port, …/v1 or the full …/chat/completions address
	Model   string        // the model name sent with each request
	APIKey  string        // sent as a bearer token; never logged or shown
	Timeout time.Duration // the longest a dictation waits for the answer; default 3s
	Mode    string        // the mode used where no profile says otherwise; default clean
	Modes   Modes         // the user's own modes, and replacements of built-in prompts
}

// Modes maps a cleanup mode's name (lower case) to its instruction; an
// immutable value like List.
type Modes struct{ joined string }

// NewModes returns the modes in m; names are lower-cased.
func NewModes(m map[string]string) Modes {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, 0, 2*len(names))
	for _, k := range names {
		parts = append(parts, strings.ToLower(k), m[k])
	}
	return Modes{joined: strings.Join(parts, "\x00")}
}

// Map returns a fresh copy of the modes.
func (m Modes) Map() map[string]string {
	out := map[string]string{}
	if m.joined == "" {
		return out
	}
	parts := strings.Split(m.joined, "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		out[parts[i]] = parts[i+1]
	}
	return out
}

// builtinModes are the instructions of the modes every config has; a mode of
// the same name in cleanup.modes replaces one.
var builtinModes = map[string]string{
	"clean": "Rewrite the user's dictated text: remove filler words (um, uh, like, you know), " +
		"false starts and repetitions; fix punctuation and capitalisation. Keep the speaker's words, " +
		"meaning and language; do not add, answer or explain anything. Reply with the rewritten text only.",
	"formal": "Rewrite the user's dictated text in a polite, formal register with complete sentences, " +
		"correct punctuation and no filler words. Keep the meaning and the language; do not add facts, " +
		"answer questions or explain. Reply with the rewritten text only.",
	"list": "Rewrite the user's dictated text without filler words. When the speaker enumerates items, " +
		"write them as a list with one item per line, each starting with \"- \"; otherwise write plain sentences. " +
		"Keep the words and the language; do not add or explain anything. Reply with the rewritten text only.",
}

func builtinModeNames() []string {
	names := make([]string, 0, len(builtinModes))
	for k := range builtinModes {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// CleanupModes returns every mode's instruction: the built-in ones, then the
// user's, which win on a name clash.
func (c Cleanup) CleanupModes() map[string]string {
	out := map[string]string{}
	for k, v := range builtinModes {
		out[k] = v
	}
	for k, v := range c.Modes.Map() {
		out[k] = v
	}
	return out
}

// Active says whether dictations are cleaned up at all.
func (c Cleanup) Active() bool { return c.Enabled && c.URL != "" }

// ActiveMode is the mode this dictation is cleaned up with ("" for none):
// Mode when cleanup is on and it names a mode.
func (c Cleanup) ActiveMode() string {
	if !c.Active() || c.Mode == "" || c.Mode == CleanupOff {
		return ""
	}
	return c.Mode
}

func cleanupFields() []field {
	return []field{
		boolField(KeyCleanupEnabled, func(c *Config) any { return &c.Cleanup.Enabled }),
		{key: KeyCleanupURL, ptr: func(c *Config) any { return &c.Cleanup.URL }, check: checkRemoteURL,
			allowed: `"" for no cleanup, or the http:// or https:// address of an OpenAI-compatible chat server such as http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8080 (llama.cpp's server)`,
			hint:    "such an address"},
		{key: KeyCleanupModel, ptr: func(c *Config) any { return &c.Cleanup.Model }, check: checkOneLineOrEmpty,
			allowed: "the chat model's name as the server knows it, such as llama3.2:3b", hint: "a model name"},
		textField(KeyCleanupAPIKey, func(c *Config) any { return &c.Cleanup.APIKey }),
		durField(KeyCleanupTimeout, func(c *Config) any { return &c.Cleanup.Timeout }, 100*time.Millisecond, time.Minute),
		{key: KeyCleanupMode, ptr: func(c *Config) any { return &c.Cleanup.Mode }, check: checkModeName,
			allowed: "off, a built-in mode (" + strings.Join(builtinModeNames(), ", ") + ") or one named in cleanup.modes",
			hint:    "one of those"},
		{key: KeyCleanupModes, ptr: func(c *Config) any { return &c.Cleanup.Modes },
			allowed: `a mapping of mode names to instructions, such as {short: "Shorten the text."} (see ` + cleanupDocAnchor + `)`,
			hint:    "such a mapping"},
	}
}

func checkOneLineOrEmpty(v any, _ Options) error {
	if strings.ContainsAny(v.(string), "\r\n\t") {
		return errNotAllowed
	}
	return nil
}

func checkModeName(v any, _ Options) error {
	if s := v.(string); s == "" || strings.ContainsAny(s, " \t\r\n") {
		return errNotAllowed
	}
	return nil
}

// toModes reads cleanup.modes: a mapping of names to instructions.
func toModes(raw any) (Modes, error) {
	switch r := raw.(type) {
	case map[string]string:
		return NewModes(r), nil
	case string:
		if strings.TrimSpace(r) == "" {
			return Modes{}, nil
		}
	case map[string]any:
		m := map[string]string{}
		for k, v := range r {
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" || strings.ContainsRune(s, 0) {
				return Modes{}, fmt.Errorf("mode %q needs an instruction: one piece of text", k)
			}
			if strings.ToLower(k) == CleanupOff || strings.ContainsAny(k, " \t\r\n") {
				return Modes{}, fmt.Errorf("%q cannot be a mode name; use one word other than off", k)
			}
			m[k] = s
		}
		return NewModes(m), nil
	}
	return Modes{}, errors.New("it must be a mapping of mode names to instructions")
}

// checkCleanupModes rejects a cleanup mode, in cleanup.mode or a profile,
// that is neither built in nor in cleanup.modes.
func checkCleanupModes(path string, c Config, locs map[string]loc) []error {
	known := c.Cleanup.CleanupModes()
	names := append([]string{CleanupOff}, builtinModeNames()...)
	for k := range c.Cleanup.Modes.Map() {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	var errs []error
	c.Cleanup.Mode = strings.ToLower(c.Cleanup.Mode)
	if _, ok := known[c.Cleanup.Mode]; !ok && c.Cleanup.Mode != CleanupOff {
		f, _ := lookupField(KeyCleanupMode)
		e := valueError(path, f, locs, c.Cleanup.Mode, errors.New("no such mode"))
		e.Fix = fmt.Sprintf("set %s to one of %s, or add the mode under %s", KeyCleanupMode, strings.Join(names, ", "), KeyCleanupModes)
		errs = append(errs, e)
	}
	for _, p := range c.Profiles.Items() {
		if p.Cleanup == nil {
			continue
		}
		if _, ok := known[*p.Cleanup]; ok || *p.Cleanup == CleanupOff {
			continue
		}
		f, _ := lookupField(KeyProfiles)
		e := valueError(path, f, locs, "[…]", fmt.Errorf("profile %q: key \"cleanup\": there is no mode %q", p.Name, *p.Cleanup))
		e.Fix = fmt.Sprintf("set the profile's cleanup to one of %s, or add the mode under %s", strings.Join(names, ", "), KeyCleanupModes)
		errs = append(errs, e)
	}
	return errs
}
