package models

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testlog"
)

// FuzzHubAnswers serves arbitrary revision and tree answers (and Link
// headers) as the Hugging Face API: listFiles never panics, and a listing it
// accepts names a commit and the files a Whisper model needs.
func FuzzHubAnswers(f *testing.F) {
	var (
		mu                   sync.Mutex
		revision, tree, link string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(r.URL.Path, "/revision/"):
			_, _ = w.Write([]byte(revision))
		case strings.Contains(r.URL.Path, "/tree/"):
			if link != "" {
				w.Header().Set("Link", link)
			}
			_, _ = w.Write([]byte(tree))
		default:
			http.NotFound(w, r)
		}
	}))
	f.Cleanup(srv.Close)
	c, err := New(Options{Dir: f.TempDir(), Endpoint: srv.URL}, testlog.Discard())
	if err != nil {
		f.Fatal(err)
	}
	good := `[{"type":"file","path":"config.json","size":2,"oid":"ab"},{"type":"file","path":"model.bin","size":9,"oid":"cd","lfs":{"oid":"EF","size":9}},{"type":"file","path":"vocabulary.txt","size":3,"oid":"01"}]`
	f.Add(`{"sha":"abc123","siblings":[]}`, good, "")
	f.Add(`{"sha":"abc123"}`, `[{"type":"directory","path":"x"}]`, `</api/models/x/tree/abc?cursor=2>; rel="next"`)
	f.Add(`{}`, `null`, `<:bad url>; rel="next"`)
	f.Fuzz(func(t *testing.T, rev, tr, lk string) {
		mu.Lock()
		revision, tree, link = rev, tr, lk
		mu.Unlock()
		commit, files, err := c.listFiles(context.Background(), "org/repo")
		if err != nil {
			return
		}
		if commit == "" {
			t.Fatal("accepted a listing without a commit")
		}
		have := map[string]bool{}
		for _, fl := range files {
			have[fl.Path] = true
			if fl.Size < 0 {
				t.Fatalf("file %s with size %d", fl.Path, fl.Size)
			}
		}
		if !have["config.json"] || !have["model.bin"] || !(have["vocabulary.json"] || have["vocabulary.txt"]) {
			t.Fatalf("accepted a listing without the model's files: %+v", files)
		}
	})
}
