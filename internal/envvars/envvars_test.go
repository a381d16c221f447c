package envvars

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
)

// Every variable the program's code reads by name is in All: reads through
// os.Getenv, os.LookupEnv or an injected getenv/env function, and every
// WHISPERKEY_ literal.
func TestAllListsEveryVariableRead(t *testing.T) {
	read := regexp.MustCompile(`(?:[Gg]etenv|LookupEnv|\benv|envOr)\("([A-Za-z][A-Za-z0-9_]*)"`)
	literal := regexp.MustCompile(`"(WHISPERKEY_[A-Z0-9_]+)"`)
	root := filepath.Join("..", "..")
	found := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testenv" || d.Name() == "native" || d.Name() == "build" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, re := range []*regexp.Regexp{read, literal} {
			for _, m := range re.FindAllSubmatch(b, -1) {
				found[string(m[1])] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 10 {
		t.Fatalf("found only %v; is the scan looking at the source?", found)
	}
	for name, path := range found {
		if !slices.ContainsFunc(All, func(v Var) bool { return v.Name == name }) {
			t.Errorf("%s reads %s, which envvars.All does not list", path, name)
		}
	}
}

// The config-key overrides are listed by config.EnvOverrides, all under
// ConfigPrefix, so Set shows each and none clashes with a variable of All
// that is not a config key.
func TestConfigOverridesListed(t *testing.T) {
	names := config.EnvOverrides()
	if len(names) < 20 {
		t.Fatalf("config.EnvOverrides lists only %v", names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, ConfigPrefix) {
			t.Errorf("config override %s does not start with %s", n, ConfigPrefix)
		}
		if i := slices.IndexFunc(All, func(v Var) bool { return v.Name == n }); i >= 0 && !strings.Contains(All[i].Purpose, "config key") {
			t.Errorf("%s is both a config override and %q", n, All[i].Purpose)
		}
		if got := Set([]string{n + "=x"}, names); len(got) != 1 || strings.Contains(got[0], NotRead) {
			t.Errorf("Set does not show the override %s: %q", n, got)
		}
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    []string
	}{
		{"nothing of ours", []string{"PATH=/bin", "HOME=/root", "DISPLAY=:0"}, nil},
		{"listed and config overrides, sorted", []string{"WHISPERKEY_MODEL=small", "HF_ENDPOINT=http://mirror", "WHISPERKEY_HOTKEYS_RECORD=ctrl+space"},
			[]string{"HF_ENDPOINT=http://mirror", "WHISPERKEY_HOTKEYS_RECORD=ctrl+space", "WHISPERKEY_MODEL=small"}},
		{"secret hidden", []string{"HF_TOKEN=hf_abc"}, []string{"HF_TOKEN=(set)"}},
		{"empty ignored", []string{"WHISPERKEY_CACHE="}, nil},
		{"a misspelt key marked", []string{"WHISPERKEY_MODLE=small"}, []string{"WHISPERKEY_MODLE=small " + NotRead}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Set(tc.environ, []string{"WHISPERKEY_MODEL", "WHISPERKEY_HOTKEYS_RECORD"}); !slices.Equal(got, tc.want) {
				t.Fatalf("Set = %q, want %q", got, tc.want)
			}
		})
	}
}
