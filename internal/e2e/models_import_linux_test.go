//go:build linux

package e2e

import (
	"archive/zip"
	"compress/flate"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/models/hubtest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// isolatedCache points this test and the commands it runs at an empty cache
// and config, and returns the models folder.
func isolatedCache(t *testing.T, config string) string {
	t.Helper()
	cache := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WHISPERKEY_CACHE", cache) // the commands inherit them
	t.Setenv("WHISPERKEY_CONFIG", cfg)
	return filepath.Join(cache, "models")
}

// zipModel zips a model folder's files inside a folder named like the zip,
// as a zip tool run on the folder does.
func zipModel(t *testing.T, dir, dst string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	top := strings.TrimSuffix(filepath.Base(dst), ".zip") + "/"
	for _, n := range []string{"config.json", "model.bin", "tokenizer.json", "vocabulary.json"} {
		w, err := zw.Create(top + n)
		if err != nil {
			t.Fatal(err)
		}
		r, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(w, r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// finalRate is the progress line at its end: 100 %, the model, its size and
// a rate, on the line's last redraw.
var finalRate = regexp.MustCompile(`\r\[=+\] 100% [^\r\n]+: [0-9.]+/[0-9.]+ [kMG]?B · [0-9.]+ [kMG]?B/s *\n`)

// `models import` of the real base model, from its folder and from a zip,
// gives names that transcribe --model takes, with the same words as the base
// model itself.
func TestModelsImportTranscribes(t *testing.T) {
	base := testenv.Model(t, "base")
	modelsDir := isolatedCache(t, "")
	zipped := filepath.Join(t.TempDir(), "office-base.zip")
	zipModel(t, base, zipped)

	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"models", "import", base}, "whisper-base"},
		{[]string{"models", "import", zipped, "--name", "zipped-base"}, "zipped-base"},
	} {
		r := whisperkey(t, tc.args...)
		want := filepath.Join(modelsDir, "imported", tc.name)
		if r.code != 0 || strings.TrimSpace(r.stdout) != want {
			t.Fatalf("%v: exit %d, stdout %q, want %s\n%s", tc.args, r.code, r.stdout, want, r.stderr)
		}
		// The last line is the whole copy at 100 % with its average rate,
		// however fast the disk (a quiet machine copies 150 MB before any
		// rate window closes).
		if !finalRate.MatchString(r.stderr) {
			t.Errorf("%v: no final progress line with the average rate on stderr: %q", tc.args, r.stderr)
		}
	}
	if r := whisperkey(t, "models", "list"); !strings.Contains(r.stdout, filepath.Join(modelsDir, "imported", "zipped-base")) {
		t.Errorf("models list does not show the import:\n%s", r.stdout)
	}

	const said = "Please call me back when you get this message."
	wav := speechWAV(t, said)
	transcribe := func(model string) (text, dir string) {
		t.Helper()
		args := []string{"transcribe", "--json", "--language", "en", wav}
		if model != "" {
			args = append(args, "--model", model)
		}
		r := whisperkey(t, args...)
		if r.code != 0 {
			t.Fatalf("--model %s: exit %d: %s", model, r.code, r.stderr)
		}
		var j struct{ Text, Model string }
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
			t.Fatalf("--model %s: %v\n%s", model, err, r.stdout)
		}
		return j.Text, j.Model
	}
	want, _ := transcribe(base)
	t.Logf("base model: %q", want)
	for _, name := range []string{"whisper-base", "zipped-base"} {
		got, dir := transcribe(name)
		if got != want {
			t.Errorf("--model %s: %q, want the base model's %q", name, got, want)
		}
		if dir != filepath.Join(modelsDir, "imported", name) {
			t.Errorf("--model %s loaded %s, not the import", name, dir)
		}
	}
	// serve takes the name too: the id it lists is the name.
	addr := freePort(t)
	srv := exec.Command(binary(t), "serve", "--listen", addr, "--model", "zipped-base", "--device", "cpu")
	srv.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)))
	var srvOut testenv.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	}()
	var listed string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && listed == ""; time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/v1/models"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			listed = string(b)
		}
	}
	if !strings.Contains(listed, `"zipped-base"`) {
		t.Fatalf("serve --model zipped-base lists %q\n%s", listed, srvOut.String())
	}
	if r := whisperkey(t, "transcribe", "--remote", "http://"+addr, "--language", "en", wav); r.code != 0 || whisper.WordErrorRate(want, r.stdout) > 0.15 {
		t.Errorf("through serve --model zipped-base: exit %d, %q, want %q (%s)", r.code, r.stdout, want, r.stderr)
	}

	// model: auto with no built-in model downloaded starts on an import.
	if got, dir := transcribe(""); got != want || filepath.Dir(dir) != filepath.Join(modelsDir, "imported") {
		t.Errorf("auto: %q from %s, want %q from an import", got, dir, want)
	}
}

// Bad input to `models import` exits 1 with one message saying what is wrong
// and how to fix it, and leaves the models folder as it was.
func TestModelsImportBadInput(t *testing.T) {
	modelsDir := isolatedCache(t, "")
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good")
	if err := ct2bintest.GenerateTiny(good, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := whisperkey(t, "models", "import", good); r.code != 0 {
		t.Fatalf("the good model: exit %d: %s", r.code, r.stderr)
	}
	truncated := filepath.Join(tmp, "truncated")
	if err := ct2bintest.GenerateTiny(truncated, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(truncated, "model.bin"), 5000); err != nil {
		t.Fatal(err)
	}
	slip := filepath.Join(tmp, "slip.zip")
	func() {
		f, err := os.Create(slip)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zw := zip.NewWriter(f)
		for _, n := range []string{"model.bin", "config.json", "vocabulary.json", "../../../.bashrc"} {
			w, _ := zw.Create(n)
			w.Write([]byte("x"))
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	notZip := filepath.Join(tmp, "model.zip")
	if err := os.WriteFile(notZip, []byte("<html>blocked by policy</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"truncated model.bin", []string{truncated}, "model.bin is truncated"},
		{"zip slip", []string{slip}, `holds the entry "../../../.bashrc", which points outside the archive`},
		{"folder of something else", []string{tmp}, "holds no model.bin, so it is not a CTranslate2 Whisper model"},
		{"existing name", []string{good}, `a model named "good" is already imported`},
		{"not a zip", []string{notZip}, "is not a readable .zip"},
	}
	before := listTree(t, modelsDir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := whisperkey(t, append([]string{"models", "import"}, tt.args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, tt.want)
			}
			if after := listTree(t, modelsDir); after != before {
				t.Errorf("the models folder changed:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}

// listTree lists the files under dir, but not the lock files.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".locks" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// models.mirror is where downloads come from, ahead of HF_ENDPOINT; doctor
// says so; a mirror that cannot be reached is told with the ways around it.
func TestModelsMirror(t *testing.T) {
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-tiny.en": testenv.Model(t, "tiny.en")})
	defer hub.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	t.Setenv("HF_ENDPOINT", dead) // the config's mirror wins over it
	t.Setenv("HF_TOKEN", "")
	modelsDir := isolatedCache(t, "models:\n  mirror: "+hub.URL+"/\n")

	r := whisperkey(t, "models", "pull", "tiny.en")
	if want := filepath.Join(modelsDir, "Systran--faster-whisper-tiny.en"); r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Fatalf("pull through the mirror: exit %d, stdout %q, want %s\n%s", r.code, r.stdout, want, r.stderr)
	}
	r = whisperkey(t, "doctor", "--json", "--model", "tiny.en")
	checkDoctorSchema(t, r.stdout, r.stderr)
	var rep struct {
		Downloads struct {
			Endpoint, From string
			CacheDir       string `json:"cache_dir"`
		} `json:"model_downloads"`
	}
	_ = json.Unmarshal([]byte(r.stdout), &rep)
	if d := rep.Downloads; d.Endpoint != hub.URL || d.From != "models.mirror" || d.CacheDir != modelsDir {
		t.Errorf("doctor's model_downloads %+v, want %s from models.mirror in %s", d, hub.URL, modelsDir)
	}
	r = whisperkey(t, "doctor", "--model", "tiny.en")
	if want := "Model downloads: from " + hub.URL + " (models.mirror), kept in " + modelsDir; !strings.Contains(r.stdout, want) {
		t.Errorf("doctor does not say %q:\n%s", want, r.stdout)
	}

	// The mirror down: the message names it and the ways to get a model in.
	cfg := os.Getenv("WHISPERKEY_CONFIG")
	if err := os.WriteFile(cfg, []byte("models:\n  mirror: "+dead+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = whisperkey(t, "models", "pull", "base.en")
	for _, want := range []string{"cannot reach " + dead, "whisperkey models import PATH", "models.mirror", "docs/installing-at-work.md"} {
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("pull with the mirror down: exit %d, stderr %q lacks %q", r.code, r.stderr, want)
		}
	}
}
