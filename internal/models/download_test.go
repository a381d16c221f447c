package models

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const tinyRepo = "Systran/faster-whisper-tiny.en"

// assertInstalled checks that dir holds exactly the app's files of repo,
// byte for byte, with the marker, and nothing else of the repository.
func assertInstalled(t *testing.T, dir string, repo *fakeRepo, want []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	wantAll := append([]string{markerFile}, want...)
	if strings.Join(sortStrings(got), ",") != strings.Join(sortStrings(wantAll), ",") {
		t.Fatalf("installed files = %v, want %v", got, wantAll)
	}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, repo.files[name]) {
			t.Fatalf("%s differs from what the hub serves", name)
		}
	}
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestPullFullDownload(t *testing.T) {
	tests := []struct {
		name      string
		model     string // what the user asks for
		repo      string
		vocab     string
		token     string
		wantFiles []string
	}{
		{
			name: "registry name, vocabulary.json, token", model: "tiny.en", repo: tinyRepo, vocab: "vocabulary.json", token: "hf_secret",
			wantFiles: []string{"config.json", "model.bin", "preprocessor_config.json", "tokenizer.json", "vocabulary.json"},
		},
		{
			name: "repo id, vocabulary.txt, no token", model: "someone/whisper-ct2", repo: "someone/whisper-ct2", vocab: "vocabulary.txt",
			wantFiles: []string{"config.json", "model.bin", "preprocessor_config.json", "tokenizer.json", "vocabulary.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t)
			repo := h.addRepo(tt.repo, 3<<20, tt.vocab)
			cacheDir := t.TempDir()
			c := newTestCache(t, h, cacheDir, func(o *Options) { o.Token = tt.token })
			c.progressEvery = 0 // report every chunk, to see Done grow

			var seen []Progress
			dir, err := c.Pull(t.Context(), tt.model, func(p Progress) { seen = append(seen, p) })
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(cacheDir, strings.Replace(tt.repo, "/", "--", 1)); dir != want {
				t.Fatalf("dir = %s, want %s", dir, want)
			}
			assertInstalled(t, dir, repo, tt.wantFiles)
			if _, err := os.Stat(filepath.Join(cacheDir, partialDir)); !os.IsNotExist(err) {
				t.Fatalf(".partial left behind: %v", err)
			}
			if got, ok := c.Resolve(tt.model); !ok || got != dir {
				t.Fatalf("Resolve = %q, %v; want %q, true", got, ok, dir)
			}

			// Progress: Done never goes down and ends at Total, the sum of the files.
			var total int64
			for _, f := range tt.wantFiles {
				total += int64(len(repo.files[f]))
			}
			if len(seen) < 3 {
				t.Fatalf("only %d progress reports", len(seen))
			}
			for i, p := range seen {
				if p.Total != total || p.Model != tt.model {
					t.Fatalf("report %d = %+v, want Total %d and Model %q", i, p, total, tt.model)
				}
				if i > 0 && p.Done < seen[i-1].Done {
					t.Fatalf("Done went down: %d after %d", p.Done, seen[i-1].Done)
				}
			}
			if last := seen[len(seen)-1]; last.Done != last.Total {
				t.Fatalf("last report %+v: Done != Total", last)
			}

			// The token goes to the hub and never to the CDN; model.bin came through the CDN.
			var cdnHits int
			for _, r := range h.requests() {
				switch {
				case r.Server == "cdn":
					cdnHits++
					if r.Auth != "" {
						t.Errorf("CDN request %s carried Authorization %q", r.Path, r.Auth)
					}
				case tt.token != "" && r.Auth != "Bearer "+tt.token:
					t.Errorf("hub request %s carried Authorization %q, want the token", r.Path, r.Auth)
				case tt.token == "" && r.Auth != "":
					t.Errorf("hub request %s carried Authorization %q with no token set", r.Path, r.Auth)
				}
				if strings.Contains(r.Path, "README") || strings.Contains(r.Path, "extra.md") || strings.Contains(r.Path, ".gitattributes") {
					t.Errorf("downloaded a file the app does not need: %s", r.Path)
				}
			}
			if cdnHits != 1 {
				t.Errorf("%d CDN requests, want 1 (model.bin)", cdnHits)
			}

			// A second pull is answered from the cache.
			before := len(h.requests())
			if again, err := c.Pull(t.Context(), tt.model, nil); err != nil || again != dir {
				t.Fatalf("second Pull = %q, %v", again, err)
			}
			if n := len(h.requests()) - before; n != 0 {
				t.Fatalf("second Pull made %d requests, want 0", n)
			}
		})
	}
}

func TestPullResumes(t *testing.T) {
	const size = 2 << 20
	tests := []struct {
		name string
		// setup arms a fault; run pulls and returns the final result.
		setup func(h *fakeHub)
		run   func(t *testing.T, h *fakeHub, dir string) (string, error)
	}{
		{
			name:  "connection cut halfway, retried in the same pull",
			setup: func(h *fakeHub) { h.cutAfter = size / 2 },
			run: func(t *testing.T, h *fakeHub, dir string) (string, error) {
				return newTestCache(t, h, dir, nil).Pull(t.Context(), "tiny.en", nil)
			},
		},
		{
			name:  "pull cancelled halfway, resumed by the next pull",
			setup: func(h *fakeHub) { h.stallAfter = size / 2 },
			run: func(t *testing.T, h *fakeHub, dir string) (string, error) {
				c := newTestCache(t, h, dir, nil)
				c.progressEvery = 0
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				_, err := c.Pull(ctx, "tiny.en", func(p Progress) {
					if p.File == "model.bin" && p.Done >= p.Total-size/2 {
						cancel() // the user pressed cancel (or quit) mid-download
					}
				})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled Pull err = %v, want context.Canceled", err)
				}
				if _, ok := c.Resolve("tiny.en"); ok {
					t.Fatal("a cancelled download resolves")
				}
				part := filepath.Join(dir, partialDir, "Systran--faster-whisper-tiny.en", "model.bin.part")
				if st, err := os.Stat(part); err != nil || st.Size() == 0 {
					t.Fatalf("partial file after cancel: %v", err)
				}
				// A new process: a fresh Cache on the same directory.
				return newTestCache(t, h, dir, nil).Pull(t.Context(), "tiny.en", nil)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t)
			repo := h.addRepo(tinyRepo, size, "vocabulary.json")
			tt.setup(h)
			cacheDir := t.TempDir()
			dir, err := tt.run(t, h, cacheDir)
			if err != nil {
				t.Fatal(err)
			}
			assertInstalled(t, dir, repo, []string{"config.json", "model.bin", "preprocessor_config.json", "tokenizer.json", "vocabulary.json"})
			var cdn []seenRequest
			for _, r := range h.requests() {
				if r.Server == "cdn" {
					cdn = append(cdn, r)
				}
			}
			if len(cdn) != 2 {
				t.Fatalf("CDN requests = %+v, want 2", cdn)
			}
			// The server sent exactly half before the cut, so the resume asks for the rest.
			if want := fmt.Sprintf("bytes=%d-", size/2); cdn[0].Range != "" || cdn[1].Range != want {
				t.Fatalf("Range headers = %q then %q, want none then %q", cdn[0].Range, cdn[1].Range, want)
			}
		})
	}
}

func TestPullRefusesBadBytes(t *testing.T) {
	tests := []struct {
		name    string
		corrupt string
		want    string
	}{
		{name: "LFS file fails SHA-256", corrupt: "model.bin", want: "model.bin of " + tinyRepo + " does not match its SHA-256"},
		{name: "small file fails git blob SHA-1", corrupt: "tokenizer.json", want: "tokenizer.json of " + tinyRepo + " does not match its git blob SHA-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t)
			h.addRepo(tinyRepo, 1<<20, "vocabulary.json")
			h.corrupt = tt.corrupt
			cacheDir := t.TempDir()
			c := newTestCache(t, h, cacheDir, nil)
			_, err := c.Pull(t.Context(), "tiny.en", nil)
			if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrChecksum containing %q", err, tt.want)
			}
			if _, ok := c.Resolve("tiny.en"); ok {
				t.Fatal("a corrupt model resolves")
			}
			t.Logf("error shown: %v", err)
			if got := snapshot(t, cacheDir); strings.Count(got, "\n") != 1 {
				t.Fatalf("cache not clean after a bad download:\n%s", got)
			}
		})
	}
}

func TestPullHubErrors(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		status    int
		errorCode string
		token     string
		wantErr   error
		wantText  []string
	}{
		{name: "unknown repo 404", model: "nobody/no-such-model", wantErr: ErrNotFound,
			wantText: []string{"model repository nobody/no-such-model was not found on Hugging Face", "HF_TOKEN"}},
		{name: "unknown repo 401 RepoNotFound (anonymous)", model: "nobody/no-such-model", status: 401, errorCode: "RepoNotFound", wantErr: ErrNotFound,
			wantText: []string{"nobody/no-such-model was not found"}},
		{name: "gated repo 403 with token", model: "tiny.en", status: 403, errorCode: "GatedRepo", token: "hf_x", wantErr: ErrUnauthorized,
			wantText: []string{"refused access to " + tinyRepo, "HF_TOKEN cannot read it", "accept the model's terms"}},
		{name: "private repo 401 without token", model: "tiny.en", status: 401, wantErr: ErrUnauthorized,
			wantText: []string{"set HF_TOKEN"}},
		{name: "not a CTranslate2 model", model: "someone/pytorch-only", wantErr: ErrNotFound,
			wantText: []string{"someone/pytorch-only is not a CTranslate2 Whisper model: it has no model.bin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t)
			h.addRepo(tinyRepo, 1000, "vocabulary.json")
			h.addRepo("someone/pytorch-only", 0, "vocabulary.json")
			h.status, h.errorCode = tt.status, tt.errorCode
			cacheDir := t.TempDir()
			c := newTestCache(t, h, cacheDir, func(o *Options) { o.Token = tt.token })
			_, err := c.Pull(t.Context(), tt.model, nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			t.Logf("error shown: %v", err)
			for _, s := range tt.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err %q does not say %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if got := snapshot(t, cacheDir); strings.Count(got, "\n") != 1 {
				t.Fatalf("cache changed by a failed pull:\n%s", got)
			}
		})
	}
}

func TestOfflineCachedModelWorks(t *testing.T) {
	h := newFakeHub(t)
	h.addRepo(tinyRepo, 1<<20, "vocabulary.json")
	cacheDir := t.TempDir()
	dir, err := newTestCache(t, h, cacheDir, nil).Pull(t.Context(), "tiny.en", nil)
	if err != nil {
		t.Fatal(err)
	}
	h.close() // the network is gone

	c := newTestCache(t, h, cacheDir, nil)
	if got, ok := c.Resolve("tiny.en"); !ok || got != dir {
		t.Fatalf("Resolve offline = %q, %v", got, ok)
	}
	if got, err := c.Pull(t.Context(), "tiny.en", nil); err != nil || got != dir {
		t.Fatalf("Pull offline = %q, %v", got, err)
	}
	_, err = c.Pull(t.Context(), "base.en", nil)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "cannot reach "+h.hub.URL) {
		t.Fatalf("Pull of an uncached model offline: err = %v, want ErrOffline naming the endpoint", err)
	}
	t.Logf("error shown: %v", err)
}

func TestPullNoSpace(t *testing.T) {
	h := newFakeHub(t)
	h.addRepo(tinyRepo, 1<<20, "vocabulary.json")
	h.addRepo("Systran/faster-whisper-base.en", 1<<20, "vocabulary.json")
	cacheDir := t.TempDir()
	if _, err := newTestCache(t, h, cacheDir, nil).Pull(t.Context(), "tiny.en", nil); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, cacheDir)
	var probed string
	c := newTestCache(t, h, cacheDir, func(o *Options) {
		o.FreeSpace = func(dir string) (uint64, error) { probed = dir; return 50 << 20, nil }
	})
	_, err := c.Pull(t.Context(), "base.en", nil)
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "not enough disk space to pull base.en") {
		t.Fatalf("err = %v, want ErrNoSpace naming the model", err)
	}
	t.Logf("error shown: %v", err)
	if probed != cacheDir {
		t.Errorf("free space probed on %q, want the cache dir %q", probed, cacheDir)
	}
	if after := snapshot(t, cacheDir); after != before {
		t.Fatalf("cache changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestPullDiskFullWhileWriting makes the write of model.bin hit a real ENOSPC
// by pointing its partial file at /dev/full.
func TestPullDiskFullWhileWriting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/full exists only on Linux; the CI runs Linux")
	}
	h := newFakeHub(t)
	repo := h.addRepo(tinyRepo, 1<<20, "vocabulary.json")
	cacheDir := t.TempDir()
	partial := filepath.Join(cacheDir, partialDir, "Systran--faster-whisper-tiny.en")
	if err := os.MkdirAll(partial, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(partial, revisionFile), []byte(repo.commit+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", filepath.Join(partial, "model.bin.part")); err != nil {
		t.Fatal(err)
	}
	c := newTestCache(t, h, cacheDir, nil)
	_, err := c.Pull(t.Context(), "tiny.en", nil)
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want ErrNoSpace saying disk full", err)
	}
	t.Logf("error shown: %v", err)
	if got := snapshot(t, cacheDir); strings.Count(got, "\n") != 1 {
		t.Fatalf("cache not cleaned after disk full:\n%s", got)
	}
}

func TestConcurrentPullsDownloadOnce(t *testing.T) {
	h := newFakeHub(t)
	h.addRepo(tinyRepo, 1<<20, "vocabulary.json")
	c := newTestCache(t, h, t.TempDir(), nil)
	pullAtOnce(t, []*Cache{c, c, c})
	if cdn := cdnFetches(h); cdn != 1 {
		t.Fatalf("model.bin fetched %d times, want 1", cdn)
	}
}

// pullAtOnce pulls tiny.en through every cache at the same time and returns
// the directory they all agree on.
func pullAtOnce(t *testing.T, caches []*Cache) string {
	t.Helper()
	var wg sync.WaitGroup
	dirs := make([]string, len(caches))
	errs := make([]error, len(caches))
	for i, c := range caches {
		wg.Go(func() { dirs[i], errs[i] = c.Pull(t.Context(), "tiny.en", nil) })
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Fatalf("pull %d = %q, %v", i, dirs[i], errs[i])
		}
	}
	return dirs[0]
}

// cdnFetches counts the model.bin downloads the hub served.
func cdnFetches(h *fakeHub) int {
	var cdn int
	for _, r := range h.requests() {
		if r.Server == "cdn" {
			cdn++
		}
	}
	return cdn
}

// Two Cache instances on one directory stand for two processes (`models
// pull` and the app): the file lock lets one download while the other
// waits, so the partial files are written once and both get the model.
func TestPullsFromTwoCachesDownloadOnce(t *testing.T) {
	h := newFakeHub(t)
	h.addRepo(tinyRepo, 4<<20, "vocabulary.json")
	dir := t.TempDir()
	got := pullAtOnce(t, []*Cache{newTestCache(t, h, dir, nil), newTestCache(t, h, dir, nil)})
	if cdn := cdnFetches(h); cdn != 1 {
		t.Fatalf("model.bin fetched %d times, want 1: the two caches downloaded side by side", cdn)
	}
	if st, err := os.Stat(filepath.Join(got, "model.bin")); err != nil || st.Size() != 4<<20 {
		t.Fatalf("installed model.bin: %v", err)
	}
}

func TestRemove(t *testing.T) {
	h := newFakeHub(t)
	h.addRepo(tinyRepo, 1000, "vocabulary.json")
	cacheDir := t.TempDir()
	c := newTestCache(t, h, cacheDir, nil)
	dir, err := c.Pull(t.Context(), "tiny.en", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Remove("tiny.en"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v", dir, err)
	}
	if got := snapshot(t, cacheDir); strings.Count(got, "\n") != 1 {
		t.Fatalf("cache not empty after rm:\n%s", got)
	}
	tests := []struct {
		name    string
		model   string
		wantErr error
		want    string
	}{
		{name: "not downloaded", model: "tiny.en", wantErr: ErrNotFound, want: "not downloaded"},
		{name: "unknown name", model: "huge", wantErr: ErrNotFound, want: `unknown model "huge"`},
		{name: "local directory", model: t.TempDir(), want: "not a download"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Remove(tt.model)
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Remove(%q) = %v, want %v containing %q", tt.model, err, tt.wantErr, tt.want)
			}
		})
	}
}
