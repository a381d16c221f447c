package models

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// importCache is a Cache on an empty folder, with no network.
func importCache(t *testing.T) *Cache {
	t.Helper()
	c, err := New(Options{Dir: t.TempDir(), Endpoint: "http://127.0.0.1:1", FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	c.progressEvery = 0
	return c
}

// zipEntry is one entry of a test zip: body, or raw compressed bytes with
// the header's sizes as given (to lie about them).
type zipEntry struct {
	name string
	body []byte
	src  string // a file to store instead of body
	mode fs.FileMode
	raw  *zip.FileHeader
}

func writeZip(t *testing.T, path string, entries []zipEntry) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, e := range entries {
		if e.raw != nil {
			w, err := zw.CreateRaw(e.raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(e.body); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if e.src != "" {
			r, err := os.Open(e.src)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(w, r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
		} else if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// zipFolder zips the model files of dir under prefix ("" or "name/").
func zipFolder(t *testing.T, dir, prefix, dst string) {
	t.Helper()
	var entries []zipEntry
	if prefix != "" {
		entries = append(entries, zipEntry{name: prefix, mode: fs.ModeDir | 0o755})
	}
	for _, n := range []string{"config.json", "model.bin", "tokenizer.json", "vocabulary.json", "preprocessor_config.json"} {
		if fileExists(filepath.Join(dir, n)) {
			entries = append(entries, zipEntry{name: prefix + n, src: filepath.Join(dir, n)})
		}
	}
	writeZip(t, dst, entries)
}

func fileSHA256(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// assertClean fails when a failed import left anything in the cache: no
// model folder, nothing in the partial folder.
func assertClean(t *testing.T, c *Cache) {
	t.Helper()
	for _, d := range []string{importedDir, partialDir} {
		entries, err := os.ReadDir(filepath.Join(c.Dir(), d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("left behind: %s", filepath.Join(c.Dir(), d, e.Name()))
		}
	}
}

// The real base model imports from its folder and from a zip of it (files
// at the top and in a folder), under its own name or the one given; the copy
// is byte for byte the source, and the name works everywhere a model name does.
func TestImportRealModel(t *testing.T) {
	src := testenv.Model(t, "base")
	c := importCache(t)
	zipTop := filepath.Join(t.TempDir(), "base-zipped.zip")
	zipFolder(t, src, "", zipTop)
	zipNested := filepath.Join(t.TempDir(), "Nested.ZIP")
	zipFolder(t, src, "faster-whisper-base/", zipNested)

	tests := []struct {
		name, src, as, want string
	}{
		{"folder, its own name", src, "", "whisper-base"},
		{"zip, its own name", zipTop, "", "base-zipped"},
		{"zip with a folder inside, a name given", zipNested, "office-base", "office-base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reports []Progress
			r, err := c.Import(t.Context(), tt.src, tt.as, func(p Progress) { reports = append(reports, p) })
			if err != nil {
				t.Fatal(err)
			}
			if r.Name != tt.want || r.Dir != filepath.Join(c.Dir(), importedDir, tt.want) {
				t.Fatalf("imported as %q in %s, want %q", r.Name, r.Dir, tt.want)
			}
			if r.NoTokenizer || r.Info.NMels != 80 || !r.Info.Multilingual {
				t.Errorf("result %+v, info %+v", r, r.Info)
			}
			last := reports[len(reports)-1]
			if len(reports) < 3 || last.Done != last.Total || last.Total < 140e6 || last.Model != tt.want {
				t.Errorf("progress: %d reports, last %+v", len(reports), last)
			}
			for _, f := range []string{"model.bin", "config.json", "tokenizer.json", "vocabulary.json"} {
				if got, want := fileSHA256(t, filepath.Join(r.Dir, f)), fileSHA256(t, filepath.Join(src, f)); got != want {
					t.Errorf("%s differs from the source", f)
				}
			}
			m, err := c.Lookup(tt.want)
			if err != nil || !m.Imported || m.Local != r.Dir || m.Languages != LangMultilingual {
				t.Fatalf("Lookup(%q) = %+v, %v", tt.want, m, err)
			}
			if dir, ok := c.Resolve(tt.want); !ok || dir != r.Dir {
				t.Errorf("Resolve(%q) = %s, %v", tt.want, dir, ok)
			}
			if dir, err := c.Pull(t.Context(), tt.want, nil); err != nil || dir != r.Dir {
				t.Errorf("Pull(%q) = %s, %v; want the import with no network", tt.want, dir, err)
			}
			var listed bool
			for _, e := range c.List() {
				if e.Name == tt.want {
					listed = e.Downloaded && e.Path == r.Dir && e.Size == last.Total
				}
			}
			if !listed {
				t.Errorf("List does not show %s downloaded at %s: %+v", tt.want, r.Dir, c.List())
			}
		})
	}
	entries, _ := os.ReadDir(filepath.Join(c.Dir(), partialDir))
	if len(entries) != 0 {
		t.Errorf("partial folder not emptied: %v", entries)
	}

	// A second import under a taken name is refused, the first stays.
	_, err := c.Import(t.Context(), src, "", nil)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "--name") || !strings.Contains(err.Error(), "models rm whisper-base") {
		t.Errorf("import under a taken name: %v", err)
	}
	if _, ok := c.Resolve("whisper-base"); !ok {
		t.Error("the first import is gone after a refused second one")
	}
	if err := c.Remove("office-base"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), importedDir, "office-base")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removed import still there: %v", err)
	}
	if _, err := c.Lookup("office-base"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup after rm: %v", err)
	}
	if _, err := os.Stat(filepath.Join(src, "model.bin")); err != nil {
		t.Errorf("rm touched the source: %v", err)
	}
}

// Bad input is refused with a message naming what is wrong and the fix, and
// leaves nothing in the cache.
func TestImportRefusesBadInput(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "tiny")
	if err := ct2bintest.GenerateTiny(good, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	copyDir := func(name string, edit func(dir string)) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(good)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(good, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if edit != nil {
			edit(dir)
		}
		return dir
	}
	truncated := copyDir("truncated", func(dir string) {
		p := filepath.Join(dir, "model.bin")
		st, _ := os.Stat(p)
		if err := os.Truncate(p, st.Size()-100); err != nil {
			t.Fatal(err)
		}
	})
	truncatedZip := filepath.Join(tmp, "truncated.zip")
	zipFolder(t, truncated, "truncated/", truncatedZip)
	other := filepath.Join(tmp, "photos")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.jpg", "b.jpg", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(other, n), []byte("not a model"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	onlyBin := copyDir("only-bin", func(dir string) {
		for _, n := range []string{"config.json", "vocabulary.json", "tokenizer.json"} {
			os.Remove(filepath.Join(dir, n))
		}
	})
	notZip := filepath.Join(tmp, "model.zip")
	if err := os.WriteFile(notZip, []byte("<html>Access denied by your proxy</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	modelBin, err := os.ReadFile(filepath.Join(good, "model.bin"))
	if err != nil {
		t.Fatal(err)
	}
	small := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(good, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rest := []zipEntry{{name: "config.json", body: small("config.json")}, {name: "vocabulary.json", body: small("vocabulary.json")}}
	mkzip := func(name string, entries ...zipEntry) string {
		p := filepath.Join(tmp, name)
		writeZip(t, p, entries)
		return p
	}
	slip := mkzip("slip.zip", append([]zipEntry{{name: "model.bin", body: modelBin}, {name: "../../evil.txt", body: []byte("x")}}, rest...)...)
	slipBackslash := mkzip("slip2.zip", append([]zipEntry{{name: "model.bin", body: modelBin}, {name: `..\evil.txt`, body: []byte("x")}}, rest...)...)
	absolute := mkzip("abs.zip", append([]zipEntry{{name: "/etc/model.bin", body: modelBin}}, rest...)...)
	link := mkzip("link.zip", append([]zipEntry{{name: "model.bin", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}}, rest...)...)
	// Sizes that lie: the header promises fewer bytes than the data holds
	// (an unpacker trusting it overflows), or a ratio only a bomb has.
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestSpeed)
	fw.Write(modelBin)
	fw.Close()
	lie := mkzip("lie.zip", append([]zipEntry{{raw: &zip.FileHeader{Name: "model.bin", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(modelBin[:1000]), CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 1000}, body: deflated.Bytes()}}, rest...)...)
	bomb := mkzip("bomb.zip", append([]zipEntry{{raw: &zip.FileHeader{Name: "model.bin", Method: zip.Deflate,
		CRC32: 1, CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 1 << 40}, body: deflated.Bytes()}}, rest...)...)
	brokenTok := copyDir("broken-tokenizer", func(dir string) {
		if err := os.Truncate(filepath.Join(dir, "tokenizer.json"), 1000); err != nil {
			t.Fatal(err)
		}
	})
	brokenTokZip := filepath.Join(tmp, "broken-tokenizer.zip")
	zipFolder(t, brokenTok, "broken-tokenizer/", brokenTokZip)
	// Stored, so no ratio gives it away: only the cap on tokenizer.json does.
	hugeTok := mkzip("huge-tokenizer.zip", append([]zipEntry{{name: "model.bin", body: modelBin}, {raw: &zip.FileHeader{Name: "tokenizer.json", Method: zip.Store,
		CompressedSize64: 40 << 20, UncompressedSize64: 40 << 20}, body: []byte("{}")}}, rest...)...)
	twice := mkzip("twice.zip", append([]zipEntry{{name: "model.bin", body: modelBin}, {name: "model.bin", body: []byte("x")}}, rest...)...)
	twoModels := mkzip("two.zip", append([]zipEntry{{name: "a/model.bin", body: modelBin}, {name: "b/model.bin", body: modelBin}}, rest...)...)

	c := importCache(t)
	if _, err := c.Import(t.Context(), good, "taken", nil); err != nil {
		t.Fatalf("the good tiny model: %v", err)
	}
	before := snapshot(t, c.Dir())
	tests := []struct {
		name, src, as string
		is            error
		want          []string
	}{
		{"truncated model.bin", truncated, "", ct2bin.ErrInvalidModel, []string{"truncated", "model.bin", truncated, "nothing was imported"}},
		{"truncated model.bin in a zip", truncatedZip, "", ct2bin.ErrInvalidModel, []string{"truncated", filepath.Join(truncatedZip, "truncated", "model.bin"), "nothing was imported"}},
		{"zip slip", slip, "", ErrBadImport, []string{`"../../evil.txt"`, "outside the archive", "unsafe"}},
		{"zip slip with backslashes", slipBackslash, "", ErrBadImport, []string{`..\\evil.txt`, "outside the archive"}},
		{"absolute path in a zip", absolute, "", ErrBadImport, []string{`"/etc/model.bin"`, "outside the archive"}},
		{"link in a zip", link, "", ErrBadImport, []string{"symbolic link"}},
		{"size smaller than the data", lie, "", ErrBadImport, []string{lie, "model.bin", "does not unpack to what its header says", "damaged or crafted"}},
		{"zip bomb ratio", bomb, "", ErrBadImport, []string{"model.bin", "1099511627776 bytes", "damaged or crafted"}},
		{"broken tokenizer.json", brokenTok, "", ErrBadImport, []string{filepath.Join(brokenTok, "tokenizer.json"), "tokenizer.json is damaged", "re-download", "nothing was imported"}},
		{"broken tokenizer.json in a zip", brokenTokZip, "", ErrBadImport, []string{filepath.Join(brokenTokZip, "broken-tokenizer", "tokenizer.json"), "tokenizer.json is damaged", "nothing was imported"}},
		{"tokenizer.json over its cap in a zip", hugeTok, "", ErrBadImport, []string{`"tokenizer.json" unpacks to 41943040 bytes, more than the 33554432`, "damaged or crafted"}},
		{"one name twice in a zip", twice, "", ErrBadImport, []string{`holds "model.bin" twice`, "damaged or crafted"}},
		{"two models in a zip", twoModels, "", ErrBadImport, []string{"more than one model.bin", "a, b"}},
		{"folder of something else", other, "", ErrBadImport, []string{other, "no model.bin", "not a CTranslate2 Whisper model"}},
		{"model.bin alone", onlyBin, "", ErrBadImport, []string{"no config.json", "whole model folder"}},
		{"not a zip", notZip, "", ErrBadImport, []string{notZip, "not a readable .zip"}},
		{"missing path", filepath.Join(tmp, "nope"), "", fs.ErrNotExist, []string{"nope", "model folder or a .zip"}},
		{"existing name", good, "taken", ErrExists, []string{`"taken" is already imported`, "--name", "models rm taken"}},
		{"built-in name", good, "base.en", ErrExists, []string{"built-in model", "--name"}},
		{"auto", good, "Auto", ErrExists, []string{"auto"}},
		{"name with a space", good, "my model", ErrBadImport, []string{`"my model" cannot be a model name`, "--name"}},
		{"name with a slash", good, "a/b", ErrBadImport, []string{"cannot be a model name"}},
		{"a device name on Windows", good, "con", ErrBadImport, []string{"cannot be a model name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Import(t.Context(), tt.src, tt.as, nil)
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), partialDir) {
				t.Errorf("error %q names the temporary folder", err)
			}
			if after := snapshot(t, c.Dir()); after != before {
				t.Errorf("the cache changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// A cancelled import stops and leaves nothing.
func TestImportCancelled(t *testing.T) {
	src := t.TempDir()
	if err := ct2bintest.GenerateTiny(src, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	c := importCache(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Import(ctx, src, "gone", nil); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("cancelled import: %v", err)
	}
	assertClean(t, c)
}

// models import on the command line: progress on stderr, the folder on
// stdout, the name to use; a bad argument list is a usage error.
func TestRunCLIImport(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tiny-whisper")
	if err := ct2bintest.GenerateTiny(src, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(src, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	c := importCache(t)
	tests := []struct {
		name             string
		args             []string
		code             int
		wantOut, wantErr []string
	}{
		{"no path", []string{"import"}, 2, nil, []string{"takes 1 argument(s), got 0"}},
		{"--name without a value", []string{"import", src, "--name"}, 2, nil, []string{"--name needs a value"}},
		{"unknown flag", []string{"import", "--force", src}, 2, nil, []string{"unknown flag --force"}},
		{"its own name", []string{"import", src}, 0, []string{filepath.Join(c.Dir(), "imported", "tiny-whisper") + "\n"},
			[]string{"\r[", "100% tiny-whisper: 1.8/1.8 MB", "imported tiny-whisper: multilingual, 80 mel bins",
				"no tokenizer.json", "transcribe --model tiny-whisper"}},
		{"a name given first", []string{"import", "--name", "office", src}, 0, []string{filepath.Join(c.Dir(), "imported", "office")}, []string{"imported office"}},
		{"a name given after, with =", []string{"import", src, "--name=office2"}, 0, []string{filepath.Join(c.Dir(), "imported", "office2")}, nil},
		{"taken", []string{"import", src, "--name", "office"}, 1, nil, []string{"whisperkey models import: a model named \"office\" is already imported"}},
		{"listed", []string{"list"}, 0, []string{"office ", "office2 ", "tiny-whisper ", "1.8 MB", "yes"}, nil},
		{"removed", []string{"rm", "office2"}, 0, []string{"removed office2"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := RunCLI(t.Context(), tt.args, &out, &errb, c); code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout %q\nstderr %q", code, tt.code, out.String(), errb.String())
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout %q lacks %q", out.String(), w)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr %q lacks %q", errb.String(), w)
				}
			}
		})
	}
}

// The download address: models.mirror (Options.Endpoint) wins over
// HF_ENDPOINT, which wins over huggingface.co; Endpoint says which.
func TestEndpointPrecedence(t *testing.T) {
	tests := []struct {
		name, mirror, env, want, from string
	}{
		{"default", "", "", DefaultEndpoint, EndpointDefault},
		{"HF_ENDPOINT", "", "https://hf-mirror.example/", "https://hf-mirror.example", EndpointEnv},
		{"models.mirror wins", "https://models.corp.example/hf/", "https://hf-mirror.example", "https://models.corp.example/hf", EndpointMirror},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HF_ENDPOINT", tt.env)
			c, err := New(Options{Dir: t.TempDir(), Endpoint: tt.mirror}, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			if got, from := c.Endpoint(); got != tt.want || from != tt.from {
				t.Errorf("Endpoint() = %s, %s; want %s, %s", got, from, tt.want, tt.from)
			}
		})
	}
	t.Setenv("HF_ENDPOINT", "")
	if _, err := New(Options{Dir: t.TempDir(), Endpoint: "ftp://mirror"}, testLogger(t)); err == nil || !strings.Contains(err.Error(), "models.mirror") {
		t.Errorf("an ftp mirror: %v", err)
	}
}

// An import that would not fit is refused before anything is written.
func TestImportNoSpace(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tiny-random")
	if err := ct2bintest.GenerateTiny(src, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Dir: t.TempDir(), FreeSpace: func(string) (uint64, error) { return 50 << 20, nil }}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Import(t.Context(), src, "", nil)
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "not enough disk space to import tiny-random") {
		t.Fatalf("import with 50 MB free: %v", err)
	}
	assertClean(t, c)
}
