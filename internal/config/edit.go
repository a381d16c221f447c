package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// EnsureFile writes example to path when no file is there yet (first run) and
// reports whether it did. The folder is created as needed.
func EnsureFile(path string, example []byte) (created bool, err error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("check config %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("create config folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another instance was quicker
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("create config %s: %w", path, err)
	}
	if _, err := f.Write(example); err != nil {
		_ = f.Close()
		return false, fmt.Errorf("write config %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("write config %s: %w", path, err)
	}
	return true, nil
}

// writeFileAtomic replaces path in one step, so the watcher and the user's
// editor never see a half-written file.
func writeFileAtomic(path string, data []byte) error {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p // keep a symlinked config (dotfiles) a symlink
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create config folder: %w", err)
	}
	f, err := os.CreateTemp(dir, ".config-*.tmp")
	if err != nil {
		return fmt.Errorf("write config %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write config %s: %w", path, err)
	}
	return nil
}

// setInFile returns data with the dotted key set to value (string, int or bool).
// It changes or adds just one line when it can, so blank lines and layout stay
// as the user left them; otherwise it edits the YAML node tree, which keeps
// comments but normalises indentation.
func setInFile(data []byte, key string, value any) ([]byte, error) {
	val := &yaml.Node{}
	if err := val.Encode(value); err != nil {
		return nil, fmt.Errorf("encode %s: %w", key, err)
	}
	if val.Tag == "!!str" && strings.ContainsAny(val.Value, "\r\n") {
		val.Style = yaml.DoubleQuotedStyle // keep it on one line
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if out, ok := patchLines(data, &doc, key, val); ok && holds(out, key, val) {
		return out, nil
	}
	return setNode(&doc, key, val)
}

func scalarText(n *yaml.Node) string {
	b, _ := yaml.Marshal(n) // a scalar node always encodes
	return strings.TrimSuffix(string(b), "\n")
}

// findKey returns the key and value nodes of name in mapping m (keys are case-insensitive, as in viper).
func findKey(m *yaml.Node, name string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, name) {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// patchLines edits the text directly; ok is false for layouts it does not handle.
func patchLines(data []byte, doc *yaml.Node, key string, val *yaml.Node) (out []byte, ok bool) {
	text := scalarText(val)
	eol := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	lines := strings.SplitAfter(string(data), "\n")
	parts := strings.Split(key, ".")
	leaf := parts[len(parts)-1]
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return appendKey(data, parts, text, eol), true
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	if len(parts) == 2 {
		k, v := findKey(m, parts[0])
		switch {
		case k == nil:
			return appendKey(data, parts, text, eol), true
		case isNull(v) && v.Value == "": // "hotkeys:" with nothing under it yet
			return insertLine(lines, k.Line, strings.Repeat(" ", k.Column+1)+leaf+": "+text, eol), true
		case v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle != 0:
			return nil, false
		}
		m = v
	}
	k, v := findKey(m, leaf)
	if k == nil {
		end := lastLine(m.Content[len(m.Content)-1])
		if end == 0 {
			return nil, false
		}
		return insertLine(lines, end, strings.Repeat(" ", m.Content[0].Column-1)+leaf+": "+text, eol), true
	}
	if v.Kind != yaml.ScalarNode || v.Line != k.Line || lastLine(v) != v.Line || isNull(v) && v.Value == "" {
		return nil, false
	}
	body := strings.TrimRight(lines[v.Line-1], "\r\n")
	ending := lines[v.Line-1][len(body):]
	start := v.Column - 1
	if start > len(body) {
		return nil, false
	}
	rest := body[start:]
	end := len(rest)
	if c := v.LineComment + k.LineComment; c != "" {
		if end = strings.LastIndex(rest, c); end < 0 {
			return nil, false
		}
	} else if strings.Contains(rest, " #") {
		return nil, false // a comment the parser did not attach where expected
	}
	src := strings.TrimRight(rest[:end], " \t")
	lines[v.Line-1] = body[:start] + text + rest[len(src):] + ending
	return []byte(strings.Join(lines, "")), true
}

// lastLine is the last line a value occupies, or 0 when that is not plain to see.
func lastLine(n *yaml.Node) int {
	switch {
	case n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && !strings.Contains(n.Value, "\n"):
		return n.Line
	case n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0,
		n.Kind == yaml.SequenceNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0:
		return lastLine(n.Content[len(n.Content)-1])
	}
	return 0
}

func insertLine(lines []string, after int, line, eol string) []byte {
	if after < 1 || after > len(lines) {
		after = len(lines)
	}
	if !strings.HasSuffix(lines[after-1], "\n") {
		lines[after-1] += eol
	}
	out := append(lines[:after:after], line+eol)
	return []byte(strings.Join(append(out, lines[after:]...), ""))
}

func appendKey(data []byte, parts []string, text, eol string) []byte {
	out := string(data)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += eol
	}
	if len(parts) == 2 {
		return []byte(out + parts[0] + ":" + eol + "  " + parts[1] + ": " + text + eol)
	}
	return []byte(out + parts[0] + ": " + text + eol)
}

// holds reports whether data parses with key set to val: a check on patchLines.
func holds(data []byte, key string, val *yaml.Node) bool {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return false
	}
	n := doc.Content[0]
	for _, p := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return false
		}
		if _, n = findKey(n, p); n == nil {
			return false
		}
	}
	return n.Kind == yaml.ScalarNode && n.Value == val.Value && n.ShortTag() == val.ShortTag()
}

// setNode sets key in the node tree, creating what is missing, and re-encodes it.
func setNode(doc *yaml.Node, key string, val *yaml.Node) ([]byte, error) {
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		*doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	m := doc.Content[0]
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if m.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s is not a group of keys", strings.Join(parts[:i], "."))
		}
		k, v := findKey(m, p)
		if k == nil {
			k = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}
			v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			m.Content = append(m.Content, k, v)
		}
		if i == len(parts)-1 {
			val.HeadComment, val.LineComment, val.FootComment = v.HeadComment, v.LineComment, v.FootComment
			*v = *val
			break
		}
		if isNull(v) {
			*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: v.HeadComment, LineComment: v.LineComment}
		}
		m = v
	}
	return encodeYAML(doc)
}

// encodeYAML writes n as the config files are written: two-space indents.
func encodeYAML(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return b.Bytes(), enc.Close()
}

// newStoppedTimer returns a timer that fires only after Reset (Go ≥1.23 timer semantics).
func newStoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}
