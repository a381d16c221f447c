package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// ErrInvalid matches (errors.Is) every problem with the file's content or an override.
var ErrInvalid = errors.New("invalid configuration")

// Error is one problem with the configuration, phrased for the user: what is
// wrong, where, what is allowed and how to fix it.
type Error struct {
	File    string // the config file, or the environment variable that set the value
	Line    int    // 1-based; 0 when unknown
	Key     string // dotted key; "" for problems with the file as a whole
	Value   string // the rejected value as written
	Reason  string // why, when "not allowed" needs more words
	Allowed string // what is accepted; set for rejected values
	Fix     string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	switch {
	case e.Allowed != "":
		fmt.Fprintf(&b, "key %q: %q is not allowed", e.Key, e.Value)
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
		fmt.Fprintf(&b, " (allowed: %s)", e.Allowed)
	case e.Key != "":
		fmt.Fprintf(&b, "key %q %s", e.Key, e.Reason)
	default:
		b.WriteString(e.Reason)
	}
	fmt.Fprintf(&b, "; fix: %s", e.Fix)
	return b.String()
}

// Is makes every *Error match ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Warning is a key the app does not know, which is ignored, or a known key
// under its old name.
type Warning struct {
	File       string
	Line       int
	Key        string
	Suggestion string // the known key it most likely meant, or ""
	Note       string // set for a known key that is deprecated: what to do instead
	// Unknown: the key is not one of the app's, so its line does nothing
	// (with Note: the count of more such keys).
	Unknown bool
}

func (w Warning) String() string {
	if w.Note != "" {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Note)
	}
	s := fmt.Sprintf("%s:%d: unknown key %q is ignored", w.File, w.Line, w.Key)
	if w.Suggestion != "" {
		return s + fmt.Sprintf("; did you mean %q?", w.Suggestion)
	}
	return s + "; docs/configuration.md lists the keys"
}

// Load reads the file at path (a missing file means all defaults), applies
// WHISPERKEY_* environment overrides and checks every value. On error, which
// joins one *Error per problem, the Config returned is Defaults().
func Load(path string, opts Options) (Config, []Warning, error) {
	data, err := readCapped(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Defaults(), nil, err
	}
	return parse(path, data, opts)
}

// MaxFileSize bounds a config file: the example with every key is under
// 10 KiB, and a file of megabytes is a mistake (or a FIFO, or /dev/zero)
// that must not cost minutes to read.
const MaxFileSize = 256 << 10

// maxUnknownWarnings is how many unknown keys are listed one by one.
const maxUnknownWarnings = 50

// readCapped reads a regular file of at most MaxFileSize bytes.
func readCapped(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: path, Reason: fmt.Sprintf("is not a regular file (%s)", st.Mode().Type()),
			Fix: "give the path of a YAML file; WhisperKey keeps running on the last good config"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, tooBig(path)
	}
	return data, nil
}

func tooBig(path string) error {
	return &Error{File: path, Reason: fmt.Sprintf("is larger than %d KiB, far more than any configuration needs", MaxFileSize>>10),
		Fix: "start again from config.example.yaml (the file may have been overwritten with something else); WhisperKey keeps running on the last good config"}
}

// loc is where a key's value is written in the file.
type loc struct {
	line int
	text string
}

func parse(path string, data []byte, opts Options) (Config, []Warning, error) {
	if len(data) > MaxFileSize {
		return Defaults(), nil, tooBig(path)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return Defaults(), nil, syntaxError(path, err)
	}
	// Only the first document would be read: a second one is a mistake to
	// report, not settings to drop silently.
	var second yaml.Node
	if err := dec.Decode(&second); err != io.EOF {
		e := &Error{File: path, Reason: "holds several YAML documents (separated by ---); only one is read",
			Fix: "merge them into one document and delete the --- line; WhisperKey keeps running on the last good config"}
		if err == nil && len(second.Content) > 0 {
			e.Line = max(second.Content[0].Line-1, 1) // the --- line, as written before its content
		}
		return Defaults(), nil, e
	}
	locs, warns, errs := walk(path, &doc)
	if len(errs) > 0 { // the file's shape is wrong; its values would be misread
		return Defaults(), warns, errors.Join(errs...)
	}

	// viper merges defaults, the file and WHISPERKEY_* variables (in rising
	// priority). It gets the bytes, never a search path: its file search also
	// tries extensionless names such as the executable itself.
	v := viper.New()
	v.SetConfigType("yaml")
	cfg := Defaults()
	for _, f := range fields() {
		v.SetDefault(f.key, render(f.ptr(&cfg)))
		// Each key's variable by name (EnvOverrides), not viper's
		// AutomaticEnv, which would answer for any name asked.
		_ = v.BindEnv(f.key, envName(f.key)) // errs only without a name
	}
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return Defaults(), warns, &Error{File: path, Reason: "the settings cannot be read: " + err.Error(),
			Fix: "compare the file with config.example.yaml; WhisperKey keeps running on the last good config"}
	}
	for _, f := range fields() {
		raw := v.Get(f.key)
		if raw == nil { // an empty value, or a group that is not a mapping (reported by walk)
			continue
		}
		if list, ok := raw.([]any); ok && f.key == KeyHotwords {
			raw = joinList(list)
		}
		val, err := convert(f.ptr(&cfg), raw)
		if err == nil && f.check != nil {
			err = f.check(val, opts)
		}
		if err != nil && f.key == KeyProfiles {
			// Every problem of every profile, each on its own line.
			if perrs := profileErrors(path, &doc); len(perrs) > 0 {
				errs = append(errs, perrs...)
				continue
			}
		}
		if err != nil {
			errs = append(errs, valueError(path, f, locs, raw, err))
		}
	}
	for _, h := range []*string{&cfg.Hotkeys.Cancel, &cfg.Hotkeys.AutoSend, &cfg.Hotkeys.PasteAgain, &cfg.Hotkeys.Undo, &cfg.Hotkeys.Edit, &cfg.Hotkeys.Translate, &cfg.Hotkeys.Language} {
		if *h == "" || strings.EqualFold(*h, HotkeyOff) {
			*h = HotkeyOff // one spelling for "off", the one internal/hotkey knows
		}
	}
	if len(errs) == 0 {
		moved, merrs := migrateWords(path, &cfg, locs)
		warns, errs = append(warns, moved...), merrs
	}
	if len(errs) == 0 { // a value already rejected would be reported twice
		errs = append(crossCheck(path, cfg, locs), checkCleanupModes(path, cfg, locs)...)
		errs = append(errs, checkCommands(path, cfg, locs)...)
		errs = append(errs, checkTranslate(path, cfg, locs, opts)...)
		cfg.Cleanup.Mode = strings.ToLower(cfg.Cleanup.Mode)
	}
	if len(errs) > 0 {
		return Defaults(), warns, errors.Join(errs...)
	}
	return cfg, warns, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func syntaxError(path string, err error) error {
	e := &Error{File: path, Reason: "YAML syntax error: " + strings.TrimPrefix(err.Error(), "yaml: "),
		Fix: `correct that line (indent with spaces, not tabs; put quotes around a value that contains ": " or starts with * & ! % @ or a backquote); WhisperKey keeps running on the last good config`}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Reason = "YAML syntax error: " + m[2]
	}
	return e
}

// walk records where each known key is written, warns about unknown keys and
// rejects a file whose shape is wrong (not a mapping, duplicate keys, a group that is a value).
func walk(path string, doc *yaml.Node) (map[string]loc, []Warning, []error) {
	locs := map[string]loc{}
	var warns []Warning
	var errs []error
	// Known keys and groups, looked up once per key: linear in the file.
	known, groups := map[string]bool{}, map[string]bool{}
	for _, f := range fields() {
		known[strings.ToLower(f.key)] = true
		if g, _, ok := strings.Cut(f.key, "."); ok {
			groups[g] = true
		}
	}
	unknown := 0
	if len(doc.Content) == 0 || isNull(doc.Content[0]) { // empty, or only comments
		return locs, nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return locs, nil, []error{&Error{File: path, Line: root.Line, Reason: "the file must consist of key: value lines",
			Fix: "start again from config.example.yaml; WhisperKey keeps running on the last good config"}}
	}
	var visit func(m *yaml.Node, prefix string)
	visit = func(m *yaml.Node, prefix string) {
		seen := map[string]int{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			key := prefix + strings.ToLower(k.Value)
			if first, dup := seen[key]; dup {
				errs = append(errs, &Error{File: path, Line: k.Line, Key: key,
					Reason: fmt.Sprintf("appears twice (also on line %d)", first), Fix: "delete one of the two lines"})
				continue
			}
			seen[key] = k.Line
			isGroup := groups[key]
			switch {
			case prefix == "" && isGroup && v.Kind == yaml.MappingNode:
				visit(v, key+".")
			case prefix == "" && isGroup && !isNull(v):
				errs = append(errs, &Error{File: path, Line: v.Line, Key: key, Value: nodeText(v),
					Allowed: "a group of keys: " + strings.Join(groupMembers(key), ", "),
					Fix:     fmt.Sprintf("put the keys of %s on the lines below it, indented by two spaces", key)})
			case known[key]:
				locs[key] = loc{line: v.Line, text: nodeText(v)}
			case !isGroup:
				if unknown++; unknown <= maxUnknownWarnings {
					warns = append(warns, Warning{File: path, Line: k.Line, Key: key, Suggestion: suggestFor(key, v), Unknown: true})
				}
			}
		}
	}
	visit(root, "")
	if unknown > maxUnknownWarnings {
		warns = append(warns, Warning{File: path, Line: root.Line, Unknown: true,
			Note: fmt.Sprintf("%d more unknown keys are ignored; docs/configuration.md lists the keys", unknown-maxUnknownWarnings)})
	}
	return locs, warns, errs
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "[…]"
	case yaml.MappingNode:
		return "{…}"
	case yaml.AliasNode:
		return "*" + n.Value
	}
	return n.Value
}

func groupMembers(group string) []string {
	var keys []string
	for _, f := range fields() {
		if leaf, ok := strings.CutPrefix(f.key, group+"."); ok {
			keys = append(keys, leaf)
		}
	}
	return keys
}

// valueError phrases a rejected value, naming the environment variable when that set it.
func valueError(path string, f field, locs map[string]loc, raw any, cause error) *Error {
	e := &Error{File: path, Key: f.key, Value: fmt.Sprint(raw), Allowed: f.allowed}
	if l, ok := locs[f.key]; ok {
		e.Line, e.Value = l.line, l.text
	}
	if !errors.Is(cause, errNotAllowed) {
		e.Reason = cause.Error()
	}
	def := Defaults()
	e.Fix = fmt.Sprintf("set %s to %s or remove the line to use %s", f.key, f.hint, defaultText(render(f.ptr(&def))))
	if env := envName(f.key); os.Getenv(env) != "" {
		e.File, e.Line, e.Value = env, 0, os.Getenv(env)
		e.Fix = fmt.Sprintf("set %s to %s or unset it", env, f.hint)
	}
	return e
}

func defaultText(v any) string {
	if v == "" {
		return "the default (empty)"
	}
	return fmt.Sprint(v)
}

// crossCheck rejects combinations that are wrong although each value is allowed.
func crossCheck(path string, c Config, locs map[string]loc) []error {
	var errs []error
	if c.Audio.MinDuration >= c.Audio.MaxDuration {
		f, _ := lookupField(KeyMinDuration)
		e := valueError(path, f, locs, formatDuration(c.Audio.MinDuration),
			fmt.Errorf("it must be shorter than %s (%s)", KeyMaxDuration, formatDuration(c.Audio.MaxDuration)))
		e.Fix = fmt.Sprintf("make %s shorter than %s", KeyMinDuration, KeyMaxDuration)
		errs = append(errs, e)
	}
	keys := []string{KeyRecord, KeyCancel, KeyAutoSend, KeyPasteAgain, KeyUndo, KeyEditHotkey, KeyTranslateHotkey, KeyLanguageHotkey}
	combos := []string{c.Hotkeys.Record, c.Hotkeys.Cancel, c.Hotkeys.AutoSend, c.Hotkeys.PasteAgain, c.Hotkeys.Undo, c.Hotkeys.Edit, c.Hotkeys.Translate, c.Hotkeys.Language}
	for i := range combos {
		for j := range i {
			if combos[i] != HotkeyOff && sameCombo(combos[i], combos[j]) {
				f, _ := lookupField(keys[i])
				e := valueError(path, f, locs, combos[i], fmt.Errorf("it is the same combination as %s", keys[j]))
				e.Fix = fmt.Sprintf("choose another combination for %s, or none to turn it off", keys[i])
				if i == 0 {
					e.Fix = fmt.Sprintf("choose another combination for %s", keys[i])
				}
				errs = append(errs, e)
			}
		}
	}
	return errs
}

func sameCombo(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return norm(a) == norm(b)
}

// convert stores raw (from YAML or an environment string) into ptr and returns the stored value.
func convert(ptr any, raw any) (any, error) {
	switch p := ptr.(type) {
	case *string:
		s, err := toText(raw)
		if err != nil {
			return nil, err
		}
		*p = s
		return s, nil
	case textPtr:
		s, err := toText(raw)
		if err != nil {
			return nil, err
		}
		p.setText(s)
		return s, nil
	case *int:
		n, ok := toInt(raw)
		if !ok {
			return nil, errNotAllowed
		}
		*p = n
		return n, nil
	case *bool:
		b, ok := toBool(raw)
		if !ok {
			return nil, errNotAllowed
		}
		*p = b
		return b, nil
	case *time.Duration:
		d, ok := toDuration(raw)
		if !ok {
			return nil, errNotAllowed
		}
		*p = d
		return d, nil
	case *List:
		l, err := toList(raw)
		*p = l
		return l, err
	case *Replacements:
		r, err := toReplacements(raw)
		*p = r
		return r, err
	case *Profiles:
		r, err := toProfiles(raw)
		*p = r
		return r, err
	case *Modes:
		r, err := toModes(raw)
		*p = r
		return r, err
	}
	panic(fmt.Sprintf("config: unsupported field type %T", ptr))
}

func toInt(raw any) (int, bool) {
	switch r := raw.(type) {
	case int:
		return r, true
	case int64:
		return int(r), r == int64(int(r))
	case uint64:
		return int(r), r <= math.MaxInt32
	case float64:
		return int(r), r == math.Trunc(r) && math.Abs(r) <= math.MaxInt32
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(r))
		return n, err == nil
	}
	return 0, false
}

func toBool(raw any) (bool, bool) {
	switch r := raw.(type) {
	case bool:
		return r, true
	case string:
		switch strings.ToLower(strings.TrimSpace(r)) {
		case "true", "yes", "on", "1":
			return true, true
		case "false", "no", "off", "0":
			return false, true
		}
	}
	return false, false
}

// toDuration accepts Go durations ("300ms", "5m") and plain numbers of seconds.
func toDuration(raw any) (time.Duration, bool) {
	seconds := func(f float64) (time.Duration, bool) {
		if math.IsNaN(f) || math.Abs(f) > 1e6 {
			return 0, false
		}
		return time.Duration(f * float64(time.Second)), true
	}
	switch r := raw.(type) {
	case time.Duration:
		return r, true
	case int:
		return seconds(float64(r))
	case int64:
		return seconds(float64(r))
	case uint64:
		return seconds(float64(r))
	case float64:
		return seconds(r)
	case string:
		s := strings.TrimSpace(r)
		if d, err := time.ParseDuration(s); err == nil {
			return d, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return seconds(f)
		}
	}
	return 0, false
}

func joinList(list []any) any {
	parts := make([]string, 0, len(list))
	for _, x := range list {
		switch x.(type) {
		case string, int, float64, bool:
			parts = append(parts, fmt.Sprint(x))
		default:
			return list // nested lists stay invalid
		}
	}
	return strings.Join(parts, ", ")
}

// toText reads a single value; a number or true/false written without quotes is its text.
func toText(raw any) (string, error) {
	switch r := raw.(type) {
	case string:
		return r, nil
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(r), nil
	}
	if v := reflect.ValueOf(raw); v.Kind() == reflect.String { // a choice type, from Store.Set
		return v.String(), nil
	}
	return "", errors.New("it must be a single value")
}

// render returns a field's value as it is written in the file.
func render(ptr any) any {
	switch p := ptr.(type) {
	case *string:
		return *p
	case textPtr:
		return p.text()
	case *int:
		return *p
	case *bool:
		return *p
	case *time.Duration:
		return formatDuration(*p)
	case *List:
		return append([]string{}, p.Items()...)
	case *Replacements:
		return renderReplacements(*p)
	case *Profiles:
		return renderProfiles(*p)
	case *Modes:
		return p.Map()
	}
	panic(fmt.Sprintf("config: unsupported field type %T", ptr))
}

// formatDuration writes "5m" and "1h" rather than Go's "5m0s" and "1h0m0s".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// suggestFor finds the known key an unknown one most likely meant: same last
// part in another place (record → hotkeys.record), a near spelling, or for an
// unknown group a child that is a known key (engine: {model: …} → model).
func suggestFor(key string, v *yaml.Node) string {
	var cands []string
	for _, f := range fields() {
		if group, _, nested := strings.Cut(f.key, "."); nested && !slices.Contains(cands, group) {
			cands = append(cands, group)
		}
	}
	for _, f := range fields() {
		cands = append(cands, f.key)
	}
	leaf := func(k string) string { return k[strings.LastIndex(k, ".")+1:] }
	for _, c := range cands {
		if leaf(c) == leaf(key) {
			return c
		}
	}
	best, bestD := "", math.MaxInt
	for _, c := range cands {
		if d := choice.Distance(key, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 2 && 3*bestD <= len(best) {
		return best
	}
	if v.Kind == yaml.MappingNode {
		for i := 0; i < len(v.Content); i += 2 {
			if s := suggestFor(strings.ToLower(v.Content[i].Value), &yaml.Node{}); s != "" {
				return s
			}
		}
	}
	return ""
}
