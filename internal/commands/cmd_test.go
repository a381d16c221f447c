package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// testBuild is a build with no version stamped, as `go build` makes one.
var testBuild = Build{Version: "dev"}

// Every subcommand is listed once, in usage and in the dispatch, and a bad
// one is a usage error (exit 2).
func TestCommands(t *testing.T) {
	u := usage(testBuild)
	for _, c := range commands(testBuild) {
		if !c.hidden && !strings.Contains(u, "whisperkey "+c.name) {
			t.Errorf("usage lacks %q:\n%s", c.name, u)
		}
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), testBuild, []string{"frobnicate"}, &out, &errb)
	if code := exitCode(err, &errb); code != 2 || !strings.Contains(errb.String(), `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: code %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if err := run(context.Background(), testBuild, []string{"--version"}, &out, &errb); err != nil || !strings.HasPrefix(out.String(), "whisperkey ") {
		t.Fatalf("--version: %v %q", err, out.String())
	}
}

// `config validate FILE` checks that file, not the installed config.
func TestConfigValidateFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("WHISPERKEY_CONFIG", write("installed.yaml", "sounds: true\n"))
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		inStderr string
	}{
		{"good file", []string{"validate", write("good.yaml", "model: base\npaste: clipboard\n")}, 0, "ok\n", ""},
		{"bad value, named with its line", []string{"validate", write("bad.yaml", "model: base\nsounds: maybe\n")}, 1, "", "bad.yaml:2"},
		{"missing file", []string{"validate", filepath.Join(dir, "nope.yaml")}, 2, "", "nope.yaml: no such file"},
		{"the installed config without FILE", []string{"validate"}, 0, "ok\n", ""},
		// A misspelt key does nothing, so it fails validation unless allowed.
		{"unknown key", []string{"validate", write("typo.yaml", "audio:\n  pre_rol: false\n")}, 1, "",
			`typo.yaml:2: unknown key "audio.pre_rol" is ignored; did you mean "audio.pre_roll"?`},
		{"unknown key allowed", []string{"validate", "--allow-unknown", filepath.Join(dir, "typo.yaml")}, 0, "ok\n", "audio.pre_rol"},
		{"unknown key allowed, flag after FILE", []string{"validate", filepath.Join(dir, "typo.yaml"), "--allow-unknown"}, 0, "ok\n", "audio.pre_rol"},
		{"unknown flag", []string{"validate", "--allow-unknwn", filepath.Join(dir, "typo.yaml")}, 2, "", "unknown flag --allow-unknwn"},
		{"two files", []string{"validate", filepath.Join(dir, "good.yaml"), filepath.Join(dir, "typo.yaml")}, 2, "", "usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), testBuild, append([]string{"config"}, tt.args...), &out, &errb)
			if code := exitCode(err, &errb); code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if out.String() != tt.stdout || !strings.Contains(errb.String(), tt.inStderr) {
				t.Fatalf("stdout %q stderr %q; want stdout %q and %q in stderr", out.String(), errb.String(), tt.stdout, tt.inStderr)
			}
		})
	}
}

// model_cache_dir is where every command keeps and finds models.
func TestModelCacheDirIsUsed(t *testing.T) {
	tiny := testenv.Model(t, "tiny.en")
	dir := t.TempDir()
	model := filepath.Join(dir, "Systran--faster-whisper-tiny.en")
	if err := os.Mkdir(model, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.bin", "config.json", "tokenizer.json", "vocabulary.json"} {
		if err := os.Symlink(filepath.Join(tiny, f), filepath.Join(model, f)); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"repo": "Systran/faster-whisper-tiny.en", "revision": "test", "files": []}`
	if err := os.WriteFile(filepath.Join(model, ".complete"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("model_cache_dir: "+dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WHISPERKEY_CONFIG", cfg)
	t.Setenv("WHISPERKEY_CACHE", t.TempDir()) // not this one
	var out, errb bytes.Buffer
	if err := run(context.Background(), testBuild, []string{"models", "list"}, &out, &errb); err != nil {
		t.Fatalf("models list: %v %s", err, errb.String())
	}
	if !strings.Contains(out.String(), model) {
		t.Fatalf("models list does not find tiny.en in model_cache_dir %s:\n%s", dir, out.String())
	}
}
