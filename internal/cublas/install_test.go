package cublas_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/whisperkey/whisperkey/internal/cublas"
	"github.com/whisperkey/whisperkey/internal/cublas/cublastest"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func newCache(t *testing.T) *models.Cache {
	t.Helper()
	c, err := models.New(models.Options{Dir: t.TempDir(), Endpoint: "http://127.0.0.1:1"}, testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// progressLog keeps every progress report.
type progressLog struct {
	mu sync.Mutex
	ps []models.Progress
}

func (l *progressLog) add(p models.Progress) { l.mu.Lock(); l.ps = append(l.ps, p); l.mu.Unlock() }

func (l *progressLog) last() models.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ps[len(l.ps)-1]
}

// wantInstalled checks dir holds exactly the wheel's two libraries and no download.
func wantInstalled(t *testing.T, dir string, w cublastest.Wheel) {
	t.Helper()
	for name, data := range w.Libs {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes, err %v; want the wheel's %d bytes", name, len(got), err, len(data))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "libnvblas.so.12")); err == nil {
		t.Fatal("nvblas installed; only cuBLAS and cuBLASLt are needed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".cublas-download")); err == nil {
		t.Fatal("the downloaded wheel was left in the engine folder")
	}
}

func TestDownload(t *testing.T) {
	w := cublastest.NewWheel(t, "linux")
	pin := w.Pin
	srv := cublastest.Serve(t, "nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl", w.Data)
	pin.URL = srv.FileURL("nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl")
	log := testlog.New(t, slog.LevelDebug)
	ctx := context.Background()

	t.Run("fetched with progress and installed", func(t *testing.T) {
		dir := t.TempDir()
		var pl progressLog
		if err := cublas.Download(ctx, dir, pin, newCache(t), pl.add, log); err != nil {
			t.Fatal(err)
		}
		wantInstalled(t, dir, w)
		p := pl.last()
		if p.Done != pin.Size || p.Total != pin.Size || p.Rate <= 0 || p.Model != "cuBLAS 12.4.5.8" {
			t.Fatalf("last progress %+v: want all %d bytes of cuBLAS 12.4.5.8 with a rate", p, pin.Size)
		}
		if s := p.String(); !strings.Contains(s, "cuBLAS 12.4.5.8: ") || !strings.Contains(s, "/s") {
			t.Fatalf("progress line %q", s)
		}
		if !cublas.Installed(dir, pin) {
			t.Fatal("Installed says no after the download")
		}
	})

	t.Run("a wrong checksum is refused and nothing is installed", func(t *testing.T) {
		dir := t.TempDir()
		bad := bytes.Clone(w.Data)
		bad[len(bad)/2] ^= 0xff
		srv.Set(bad, 0)
		defer srv.Set(w.Data, 0)
		err := cublas.Download(ctx, dir, pin, newCache(t), nil, log)
		if !errors.Is(err, cublas.ErrMismatch) || !errors.Is(err, models.ErrChecksum) || !strings.Contains(err.Error(), "does not match the SHA-256 WhisperKey pins") {
			t.Fatalf("err = %v, want a checksum mismatch naming the pin", err)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		parts, _ := filepath.Glob(filepath.Join(dir, ".cublas-download", "*"))
		if len(left) != 0 || len(parts) != 0 {
			t.Fatalf("left behind: %q %q", left, parts)
		}
	})

	t.Run("a truncated download is kept and the next run resumes it", func(t *testing.T) {
		dir := t.TempDir()
		srv.Set(w.Data, 100) // every answer stops after 100 bytes: each try gets further, none to the end
		err := cublas.Download(ctx, dir, pin, newCache(t), nil, log)
		if err == nil || !strings.Contains(err.Error(), "run it again to resume") {
			t.Fatalf("err = %v, want an interrupted download to resume", err)
		}
		part := filepath.Join(dir, ".cublas-download", pin.File()+".part")
		st, err := os.Stat(part)
		if err != nil || st.Size() == 0 || st.Size() >= pin.Size {
			t.Fatalf("partial download %s: %v, %v", part, st, err)
		}
		kept := st.Size()
		if cublas.Installed(dir, pin) {
			t.Fatal("installed from a truncated download")
		}
		srv.Set(w.Data, 0)
		before := len(srv.Ranges())
		var pl progressLog
		if err := cublas.Download(ctx, dir, pin, newCache(t), pl.add, log); err != nil {
			t.Fatal(err)
		}
		wantInstalled(t, dir, w)
		if got := srv.Ranges()[before:]; !slices.Equal(got, []string{"bytes=" + strconv.FormatInt(kept, 10) + "-"}) {
			t.Fatalf("resumed with Range %q, want bytes=%d-", got, kept)
		}
		if first := pl.ps[0]; first.Done != kept {
			t.Fatalf("first progress of the resumed run: %d bytes done, want the %d kept", first.Done, kept)
		}
	})
}

func TestImport(t *testing.T) {
	w := cublastest.NewWheel(t, "windows")
	log := testlog.New(t, slog.LevelDebug)
	write := func(t *testing.T, name string, data []byte) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// archive lays the libraries out as NVIDIA's redistributable zip does.
	archive := func(t *testing.T, libs map[string][]byte) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, data := range libs {
			f, _ := zw.Create("libcublas-windows-x86_64-12.4.5.8-archive/bin/" + name)
			_, _ = f.Write(data)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	forged := map[string][]byte{}
	for n, d := range w.Libs {
		forged[n] = append(bytes.Clone(d), '!')
	}
	tests := []struct {
		name string
		file []byte
		want string // "" installs
	}{
		{"the pinned wheel", w.Data, ""},
		{"an archive holding the pinned libraries", archive(t, w.Libs), ""},
		{"an archive with other libraries", archive(t, forged), "is not the pinned one"},
		{"a zip without cuBLAS", archive(t, map[string][]byte{"readme.txt": []byte("hi")}), "has no cublas64_12.dll"},
		{"not a zip", []byte("this is not an archive"), "is not a zip archive"},
		{"an xz archive", append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "rest"...), "an .xz archive is not read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// A library already there is kept unless the import succeeds.
			old := filepath.Join(dir, "cublas64_12.dll")
			if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := cublas.Import(write(t, "nvidia_cublas_cu12-12.4.5.8-py3-none-win_amd64.whl", tc.file), dir, w.Pin, log)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				wantInstalled(t, dir, w)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if b, _ := os.ReadFile(old); string(b) != "old" {
				t.Fatalf("a refused import replaced %s", old)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
				t.Fatalf("left behind %q", left)
			}
		})
	}
}

func TestPins(t *testing.T) {
	for _, goos := range []string{"windows", "linux"} {
		p, err := cublas.For(12, goos, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.URL, "https://files.pythonhosted.org/") || p.Size < 300e6 || len(p.Libs) != 2 || !strings.Contains(p.File(), "nvidia_cublas_cu12-12.4.5.8") {
			t.Fatalf("%s pin %+v", goos, p)
		}
	}
	if _, err := cublas.For(13, "linux", ""); err == nil || !strings.Contains(err.Error(), "install cuBLAS 13") {
		t.Fatalf("CUDA 13: err = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "pin.json")
	_ = os.WriteFile(bad, []byte(`{"version":"1","url":"http://x","size":1,"sha256":"00","libs":[]}`), 0o644)
	if _, err := cublas.For(12, "linux", bad); err == nil || !strings.Contains(err.Error(), cublas.PinEnv) {
		t.Fatalf("bad pin file: err = %v", err)
	}
}
