package models

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestRegistry(t *testing.T) {
	want := map[string]string{
		"tiny": "Systran/faster-whisper-tiny", "tiny.en": "Systran/faster-whisper-tiny.en",
		"base": "Systran/faster-whisper-base", "base.en": "Systran/faster-whisper-base.en",
		"small": "Systran/faster-whisper-small", "small.en": "Systran/faster-whisper-small.en",
		"medium": "Systran/faster-whisper-medium", "medium.en": "Systran/faster-whisper-medium.en",
		"large-v3":        "Systran/faster-whisper-large-v3",
		"large-v3-turbo":  "mobiuslabsgmbh/faster-whisper-large-v3-turbo",
		"distil-large-v3": "Systran/faster-distil-whisper-large-v3",
		"distil-small.en": "Systran/faster-distil-whisper-small.en",
	}
	reg := Registry()
	if len(reg) != len(want) {
		t.Fatalf("%d models, want %d", len(reg), len(want))
	}
	for _, m := range reg {
		if want[m.Name] != m.Repo {
			t.Errorf("%s: repo %q, want %q", m.Name, m.Repo, want[m.Name])
		}
		if !validRepoID(m.Repo) || m.Size <= 0 || m.Local != "" {
			t.Errorf("%s: bad entry %+v", m.Name, m)
		}
		english := strings.HasSuffix(m.Name, ".en") || m.Name == "distil-large-v3"
		if (m.Languages == LangEnglish) != english || m.Multilingual == strings.HasSuffix(m.Name, ".en") {
			t.Errorf("%s: languages %q multilingual %v", m.Name, m.Languages, m.Multilingual)
		}
	}
	reg[0].Name = "changed"
	if Registry()[0].Name == "changed" {
		t.Fatal("Registry shares its slice between callers")
	}
}

func TestDefaultFor(t *testing.T) {
	const gib = 1 << 30
	type args struct {
		gpu  bool
		vram uint64
	}
	tabletest.Check(t, "DefaultFor", func(a args) string {
		return DefaultFor(a.gpu, a.vram)
	}, []tabletest.Case[args, string]{
		{Name: "cpu", In: args{gpu: false, vram: 0}, Want: "base.en"},
		{Name: "cpu ignores vram", In: args{gpu: false, vram: 24 * gib}, Want: "base.en"},
		{Name: "8 GB GPU", In: args{gpu: true, vram: 8 * gib}, Want: "large-v3-turbo"},
		{Name: "4 GB GPU", In: args{gpu: true, vram: 4 * gib}, Want: "large-v3-turbo"},
		{Name: "3 GB GPU", In: args{gpu: true, vram: 3 * gib}, Want: "small"},
		{Name: "1 GB GPU", In: args{gpu: true, vram: 1 * gib}, Want: "base.en"},
		{Name: "GPU, memory unknown", In: args{gpu: true, vram: 0}, Want: "large-v3-turbo"},
	})
}

func TestValidRepoID(t *testing.T) {
	tabletest.Check(t, "validRepoID", validRepoID, []tabletest.Case[string, bool]{
		{Name: "plain", In: "Systran/faster-whisper-small", Want: true},
		{Name: "dots and underscores", In: "a_b/c.d.en", Want: true},
		{Name: "no owner", In: "faster-whisper-small", Want: false},
		{Name: "three parts", In: "a/b/c", Want: false},
		{Name: "double dash", In: "a/b--c", Want: false},
		{Name: "double dot", In: "a/b..c", Want: false},
		{Name: "leading dash", In: "-a/b", Want: false},
		{Name: "trailing dot", In: "a/b.", Want: false},
		{Name: "space", In: "a/b c", Want: false},
		{Name: "empty name", In: "a/", Want: false},
		{Name: "too long", In: "a/" + strings.Repeat("x", 97), Want: false},
	})
}

func TestLookupAndResolve(t *testing.T) {
	cacheDir := t.TempDir()
	localModel := t.TempDir()
	if err := os.WriteFile(filepath.Join(localModel, "model.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	emptyDir := t.TempDir()
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("rel/model", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("rel/model/model.bin", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Dir: cacheDir, Custom: []Model{
		{Name: "mine", Repo: "me/my-whisper-ct2"},
		{Name: "desk", Local: localModel, Languages: LangEnglish},
	}}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	tests := []struct {
		name      string
		in        string
		wantRepo  string
		wantLocal string
		wantLang  string
		wantErr   string
		wantOK    bool
		wantDir   string
	}{
		{name: "built-in", in: "base.en", wantRepo: "Systran/faster-whisper-base.en", wantLang: LangEnglish, wantDir: filepath.Join(cacheDir, "Systran--faster-whisper-base.en")},
		{name: "built-in by repo id", in: "systran/faster-whisper-small", wantRepo: "Systran/faster-whisper-small", wantLang: LangMultilingual, wantDir: filepath.Join(cacheDir, "Systran--faster-whisper-small")},
		{name: "custom repo", in: "mine", wantRepo: "me/my-whisper-ct2", wantLang: LangMultilingual, wantDir: filepath.Join(cacheDir, "me--my-whisper-ct2")},
		{name: "custom local", in: "desk", wantLocal: localModel, wantLang: LangEnglish, wantOK: true, wantDir: localModel},
		{name: "any repo id", in: "someone/whisper-x.en", wantRepo: "someone/whisper-x.en", wantLang: LangEnglish, wantDir: filepath.Join(cacheDir, "someone--whisper-x.en")},
		{name: "absolute dir with model.bin", in: localModel, wantLocal: localModel, wantLang: LangMultilingual, wantOK: true, wantDir: localModel},
		{name: "relative dir with model.bin", in: "rel/model", wantLocal: filepath.Join(cwd, "rel/model"), wantLang: LangMultilingual, wantOK: true, wantDir: filepath.Join(cwd, "rel/model")},
		{name: "dir without model.bin", in: emptyDir, wantLocal: emptyDir, wantLang: LangMultilingual, wantDir: emptyDir},
		{name: "unknown name", in: "huge", wantErr: `unknown model "huge": use one of tiny, tiny.en`},
		{name: "empty", in: " ", wantErr: "empty model name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := c.Lookup(tt.in)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Lookup(%q) err = %v, want ErrNotFound containing %q", tt.in, err, tt.wantErr)
				}
				if _, ok := c.Resolve(tt.in); ok {
					t.Fatal("Resolve ok for a bad name")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Repo != tt.wantRepo || m.Local != tt.wantLocal || m.Languages != tt.wantLang {
				t.Fatalf("Lookup(%q) = %+v, want repo %q local %q languages %q", tt.in, m, tt.wantRepo, tt.wantLocal, tt.wantLang)
			}
			dir, ok := c.Resolve(tt.in)
			if ok != tt.wantOK || (ok && dir != tt.wantDir) {
				t.Fatalf("Resolve(%q) = %q, %v; want %q, %v", tt.in, dir, ok, tt.wantDir, tt.wantOK)
			}
		})
	}
}

// TestResolveIgnoresIncomplete: a model directory is only handed out with
// its marker, so a crash mid-install never gets a half model loaded.
func TestResolveIgnoresIncomplete(t *testing.T) {
	cacheDir := t.TempDir()
	c, err := New(Options{Dir: cacheDir}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cacheDir, "Systran--faster-whisper-base.en")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.bin"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Resolve("base.en"); ok {
		t.Fatal("Resolve handed out a directory without marker")
	}
	for _, e := range c.List() {
		if e.Name == "base.en" && e.Downloaded {
			t.Fatal("List calls a directory without marker downloaded")
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "custom without name", opts: Options{Custom: []Model{{Repo: "a/b"}}}, want: "has no name"},
		{name: "custom with both", opts: Options{Custom: []Model{{Name: "x", Repo: "a/b", Local: "/m"}}}, want: "keep one"},
		{name: "custom with neither", opts: Options{Custom: []Model{{Name: "x"}}}, want: "neither a repo nor a dir"},
		{name: "custom bad repo id", opts: Options{Custom: []Model{{Name: "x", Repo: "faster-whisper-small"}}}, want: "write it as owner/name"},
		{name: "custom bad languages", opts: Options{Custom: []Model{{Name: "x", Repo: "a/b", Languages: "fr"}}}, want: `languages "fr"`},
		{name: "custom shadows built-in", opts: Options{Custom: []Model{{Name: "base", Repo: "a/b"}}}, want: "is a built-in model"},
		{name: "custom twice", opts: Options{Custom: []Model{{Name: "x", Repo: "a/b"}, {Name: "x", Repo: "a/c"}}}, want: "used twice"},
		{name: "endpoint not a URL", opts: Options{Endpoint: "huggingface.co"}, want: "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Dir = t.TempDir()
			_, err := New(tt.opts, testLogger(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Setenv("HF_ENDPOINT", "https://hf-mirror.example/")
	t.Setenv("HF_TOKEN", "hf_env\n")
	t.Setenv("WHISPERKEY_CACHE", "/tmp/wk-cache")
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Endpoint != "https://hf-mirror.example" || o.Token != "hf_env" || o.Dir != filepath.Join("/tmp/wk-cache", "models") || o.Revision != "main" {
		t.Fatalf("defaults = %+v", o)
	}
}
