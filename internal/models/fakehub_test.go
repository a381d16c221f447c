package models

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testlog"
)

// fakeHub serves model repositories the way huggingface.co does: the
// revision and tree APIs, resolve URLs that answer small files directly and
// redirect LFS files to a second server standing in for the CDN, with the
// hub's headers and Range support. It records every request.
type fakeHub struct {
	t     *testing.T
	hub   *httptest.Server
	cdn   *httptest.Server
	mu    sync.Mutex
	repos map[string]*fakeRepo
	reqs  []seenRequest

	// Faults, set by tests before pulling.
	cutAfter   int64  // first CDN answer for an LFS file ends after this many bytes
	stallAfter int64  // first CDN answer sends this many bytes then waits for the client to go
	corrupt    string // file whose served bytes have one byte flipped
	status     int    // when set, every API call answers it
	errorCode  string // X-Error-Code sent with status
	faultsUsed map[string]bool
}

type fakeRepo struct {
	commit string
	files  map[string][]byte
	lfs    map[string]bool
}

type seenRequest struct {
	Server, Path, Range, Auth string
}

func newFakeHub(t *testing.T) *fakeHub {
	t.Helper()
	h := &fakeHub{t: t, repos: map[string]*fakeRepo{}, faultsUsed: map[string]bool{}}
	api := http.NewServeMux()
	api.HandleFunc("GET /api/models/{owner}/{name}/revision/{rev}", h.revision)
	api.HandleFunc("GET /api/models/{owner}/{name}/tree/{rev}", h.tree)
	files := http.NewServeMux()
	files.HandleFunc("GET /{owner}/{name}/resolve/{rev}/{file...}", h.resolve)
	hubMux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			api.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
	h.hub = httptest.NewServer(h.record("hub", hubMux))
	h.cdn = httptest.NewServer(h.record("cdn", http.HandlerFunc(h.serveCDN)))
	t.Cleanup(h.close)
	return h
}

func (h *fakeHub) close() {
	h.hub.Close()
	h.cdn.Close()
}

func (h *fakeHub) record(server string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.reqs = append(h.reqs, seenRequest{Server: server, Path: r.URL.Path, Range: r.Header.Get("Range"), Auth: r.Header.Get("Authorization")})
		h.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (h *fakeHub) requests() []seenRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]seenRequest(nil), h.reqs...)
}

// addRepo publishes testdata/repo plus a random model.bin of size bytes
// (stored in LFS) under id; vocab picks vocabulary.json or vocabulary.txt.
func (h *fakeHub) addRepo(id string, modelSize int, vocab string) *fakeRepo {
	h.t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir("testdata/repo")
	if err != nil {
		h.t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata/repo", e.Name()))
		if err != nil {
			h.t.Fatal(err)
		}
		files[e.Name()] = b
	}
	if vocab == "vocabulary.txt" {
		var toks []string
		if err := json.Unmarshal(files["vocabulary.json"], &toks); err != nil {
			h.t.Fatal(err)
		}
		delete(files, "vocabulary.json")
		files["vocabulary.txt"] = []byte(strings.Join(toks, "\n") + "\n")
	}
	if modelSize > 0 {
		rng := rand.New(rand.NewChaCha8([32]byte{byte(modelSize), byte(len(id))}))
		bin := make([]byte, modelSize)
		for i := range bin {
			bin[i] = byte(rng.Uint32())
		}
		files["model.bin"] = bin
	}
	files["docs/extra.md"] = []byte("not needed by the app\n")
	sum := sha1.Sum([]byte(id))
	r := &fakeRepo{commit: hex.EncodeToString(sum[:]), files: files, lfs: map[string]bool{"model.bin": true}}
	h.mu.Lock()
	h.repos[id] = r
	h.mu.Unlock()
	return r
}

func (h *fakeHub) repo(w http.ResponseWriter, r *http.Request) (*fakeRepo, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.status != 0 {
		w.Header().Set("X-Error-Code", h.errorCode)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(h.status)
		fmt.Fprint(w, `{"error":"Repository not found"}`)
		return nil, false
	}
	repo, ok := h.repos[r.PathValue("owner")+"/"+r.PathValue("name")]
	if !ok {
		// What the hub answers an authenticated client for a missing repository.
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"Repository not found"}`)
		return nil, false
	}
	if rev := r.PathValue("rev"); rev != "main" && rev != repo.commit {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":"Invalid rev id: %s"}`, rev)
		return nil, false
	}
	return repo, true
}

func (h *fakeHub) revision(w http.ResponseWriter, r *http.Request) {
	repo, ok := h.repo(w, r)
	if !ok {
		return
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
	}
	var sib []sibling
	for _, p := range sortedKeys(repo.files) {
		sib = append(sib, sibling{p})
	}
	writeJSON(w, map[string]any{"id": r.PathValue("owner") + "/" + r.PathValue("name"), "sha": repo.commit, "siblings": sib})
}

// tree answers pages of two entries linked by a Link header, as the hub
// paginates long listings.
func (h *fakeHub) tree(w http.ResponseWriter, r *http.Request) {
	repo, ok := h.repo(w, r)
	if !ok {
		return
	}
	type lfs struct {
		OID         string `json:"oid"`
		Size        int    `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type entry struct {
		Type string `json:"type"`
		OID  string `json:"oid"`
		Size int    `json:"size"`
		Path string `json:"path"`
		LFS  *lfs   `json:"lfs,omitempty"`
	}
	entries := []entry{{Type: "directory", OID: strings.Repeat("d", 40), Path: "docs"}}
	for _, p := range sortedKeys(repo.files) {
		b := repo.files[p]
		e := entry{Type: "file", OID: gitOID(b), Size: len(b), Path: p}
		if repo.lfs[p] {
			e.OID = gitOID([]byte("version https://git-lfs.github.com/spec/v1\n"))
			e.LFS = &lfs{OID: sha256Hex(b), Size: len(b), PointerSize: 134}
		}
		entries = append(entries, e)
	}
	var page int
	fmt.Sscan(r.URL.Query().Get("cursor"), &page)
	const per = 2
	end := min(len(entries), (page+1)*per)
	if end < len(entries) {
		next := *r.URL
		q := next.Query()
		q.Set("cursor", fmt.Sprint(page+1))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next.String()))
	}
	writeJSON(w, entries[page*per:end])
}

func (h *fakeHub) resolve(w http.ResponseWriter, r *http.Request) {
	repo, ok := h.repo(w, r)
	if !ok {
		return
	}
	name := r.PathValue("file")
	b, ok := repo.files[name]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("X-Repo-Commit", repo.commit)
	if repo.lfs[name] {
		sum := sha256Hex(b)
		w.Header().Set("ETag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", fmt.Sprint(len(b)))
		http.Redirect(w, r, h.cdn.URL+"/repos/"+sum+"?X-Amz-Signature=abc", http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+gitOID(b)+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(h.maybeCorrupt(name, b)))
}

func (h *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	sum := strings.TrimPrefix(r.URL.Path, "/repos/")
	var name string
	var data []byte
	h.mu.Lock()
	for _, repo := range h.repos {
		for p, b := range repo.files {
			if repo.lfs[p] && sha256Hex(b) == sum {
				name, data = p, b
			}
		}
	}
	cut := h.cutAfter > 0 && !h.faultsUsed["cut"]
	h.faultsUsed["cut"] = h.faultsUsed["cut"] || cut
	stall := h.stallAfter > 0 && !h.faultsUsed["stall"]
	h.faultsUsed["stall"] = h.faultsUsed["stall"] || stall
	cutAt, stallAt := h.cutAfter, h.stallAfter
	h.mu.Unlock()
	if data == nil {
		http.NotFound(w, r)
		return
	}
	data = h.maybeCorrupt(name, data)
	if cut || stall {
		n := cutAt
		if stall {
			n = stallAt
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:n])
		w.(http.Flusher).Flush()
		if stall {
			<-r.Context().Done() // until the client gives up
		}
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}
	w.Header().Set("ETag", `"`+sum+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

func (h *fakeHub) maybeCorrupt(name string, b []byte) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.corrupt != name {
		return b
	}
	c := bytes.Clone(b)
	c[len(c)/2] ^= 0xff
	return c
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func gitOID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// testLogger writes the package's log lines to the test log.
func testLogger(t *testing.T) *slog.Logger { return testlog.New(t, slog.LevelDebug) }

// newTestCache makes a Cache on dir talking to the fake hub, with plenty of
// simulated free space and short retry waits.
func newTestCache(t *testing.T, h *fakeHub, dir string, edit func(*Options)) *Cache {
	t.Helper()
	t.Setenv("HF_TOKEN", "") // a developer's own token must not reach the fake hub
	o := Options{Dir: dir, Endpoint: h.hub.URL, FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }}
	if edit != nil {
		edit(&o)
	}
	c, err := New(o, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	c.retryWait = time.Millisecond
	return c
}

// snapshot lists every path under dir with its size, to show a directory unchanged.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == lockDir || strings.HasPrefix(rel, lockDir+string(filepath.Separator)) {
			return nil // empty lock files, kept: removing one under a lock races
		}
		fmt.Fprintf(&b, "%s %d %v\n", rel, info.Size(), info.IsDir())
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b.String()
}
