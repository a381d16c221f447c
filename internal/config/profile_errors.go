package config

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// profileErrors checks the profiles list as written, entry by entry and key
// by key, and reports every problem at once on its own line, quoting the
// value: "profiles[term].paste: "typed" is not allowed". The list as a whole
// is still read by toProfiles; this only says precisely what is wrong.
func profileErrors(path string, doc *yaml.Node) []error {
	list := rootValue(doc, KeyProfiles)
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	var errs []error
	names := map[string]int{}
	for i, item := range list.Content {
		where := fmt.Sprintf("profiles[%d]", i+1)
		if item.Kind != yaml.MappingNode {
			errs = append(errs, &Error{File: path, Line: item.Line, Key: where, Value: nodeText(item),
				Allowed: "a profile: name, match and the settings it changes", Fix: "write it as in " + profilesDocAnchor})
			continue
		}
		var name string
		var nameLine int
		for j := 0; j+1 < len(item.Content); j += 2 {
			if k, v := item.Content[j], item.Content[j+1]; strings.EqualFold(k.Value, "name") && v.Kind == yaml.ScalarNode {
				name, nameLine = strings.TrimSpace(v.Value), v.Line
			}
		}
		if name != "" && !strings.ContainsAny(name, "\r\n\t") {
			where = "profiles[" + name + "]"
			if first, dup := names[strings.ToLower(name)]; dup {
				errs = append(errs, &Error{File: path, Line: nameLine, Key: where + ".name", Value: name,
					Reason: fmt.Sprintf("the name is used twice (also on line %d)", first), Allowed: "a name no other profile has",
					Fix: "rename one of the two profiles"})
			}
			names[strings.ToLower(name)] = nameLine
		}
		var p Profile
		hasMatch, matchLine := false, item.Line
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			key := strings.ToLower(k.Value)
			if key == "match" {
				hasMatch, matchLine = true, k.Line
			}
			var raw any
			if err := v.Decode(&raw); err != nil {
				raw = v.Value
			}
			if key == "name" {
				if name == "" || strings.ContainsAny(name, "\r\n\t") {
					errs = append(errs, &Error{File: path, Line: v.Line, Key: where + ".name", Value: nodeText(v),
						Allowed: "a name on one line, such as terminal", Fix: "give the profile a name"})
				}
				continue
			}
			if (key == "output" || key == "match") && v.Kind == yaml.MappingNode {
				// Each setting inside on its own line, with its own value.
				for n := 0; n+1 < len(v.Content); n += 2 {
					sk, sv := v.Content[n], v.Content[n+1]
					var sub any
					if err := sv.Decode(&sub); err != nil {
						sub = sv.Value
					}
					one := map[string]any{strings.ToLower(sk.Value): lowerMaps(sub)}
					if err := p.set(key, one); err != nil {
						errs = append(errs, profileKeyError(path, where, key+"."+strings.ToLower(sk.Value), sk, sv, err))
					}
				}
				continue
			}
			if err := p.set(key, lowerMaps(raw)); err != nil {
				errs = append(errs, profileKeyError(path, where, key, k, v, err))
			}
		}
		if name == "" && !hasKey(item, "name") {
			errs = append(errs, &Error{File: path, Line: item.Line, Key: where + ".name", Reason: "is missing",
				Fix: "add name: and a name on one line, such as name: terminal"})
		}
		if m := p.Match; !hasMatch || (len(m.Class) == 0 && len(m.Exe) == 0 && m.Title == "") {
			reason := "is missing"
			if hasMatch {
				reason = "names no window (it needs class, exe or title)"
			}
			errs = append(errs, &Error{File: path, Line: matchLine, Key: where + ".match", Reason: reason,
				Fix: "say which windows the profile is for, such as match: {class: [kitty, XTerm]}"})
		}
	}
	return errs
}

// profileKeyError phrases one rejected key of a profile.
func profileKeyError(path, where, key string, k, v *yaml.Node, err error) *Error {
	e := &Error{File: path, Line: k.Line, Key: where + "." + key, Value: nodeText(v)}
	msg := err.Error()
	switch {
	case errors.Is(err, errNotAllowed):
		e.Allowed = "see " + profilesDocAnchor
	case strings.HasPrefix(msg, "is not a profile setting"):
		e.Reason = msg
		e.Fix = "delete the line, or write the key a profile has (" + strings.Join(profileKeys, ", ") + ")"
		if key == "case" || key == "trailing_space" || key == "strip_final_period" {
			e.Fix = "put it under output:, as output: {" + key + ": …}"
		}
		return e
	case strings.HasPrefix(msg, "use "):
		e.Allowed = strings.TrimPrefix(msg, "use ")
	case strings.HasPrefix(msg, key+": use "): // output.case: use …
		e.Allowed = strings.TrimPrefix(msg, key+": use ")
	default:
		e.Allowed = msg
	}
	e.Fix = "write one of those, or delete the line: the profile then keeps the app's own " + key
	if strings.HasPrefix(key, "match.") {
		e.Fix = "correct it: a profile needs a match to say which windows it is for"
	}
	return e
}

// rootValue is the value node of a top-level key, nil when there is none.
func rootValue(doc *yaml.Node, key string) *yaml.Node {
	if doc == nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return m.Content[i+1]
		}
	}
	return nil
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return true
		}
	}
	return false
}

// lowerMaps lower-cases the keys of the maps in v, as viper does.
func lowerMaps(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[strings.ToLower(k)] = lowerMaps(y)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = lowerMaps(y)
		}
		return out
	}
	return v
}
