package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Hub answers the hub API for repositories backed by local folders: the
// revision and tree listings (with LFS sha256 for model.bin), and resolve
// URLs that redirect big files to a second "CDN" path with Range support.
type Hub struct {
	*httptest.Server
	repos map[string]string
}

// New serves repos (id "owner/name" → folder) on 127.0.0.1. Close it when done.
func New(repos map[string]string) *Hub {
	h := &Hub{repos: repos}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/models/{owner}/{name}/revision/{rev}", h.revision)
	mux.HandleFunc("GET /api/models/{owner}/{name}/tree/{rev}", h.tree)
	mux.HandleFunc("GET /{owner}/{name}/resolve/{rev}/{file}", h.resolve)
	mux.HandleFunc("GET /cdn/{owner}/{name}/{file}", h.cdn)
	h.Server = httptest.NewServer(mux)
	return h
}

func (h *Hub) dir(w http.ResponseWriter, r *http.Request) (string, bool) {
	d, ok := h.repos[r.PathValue("owner")+"/"+r.PathValue("name")]
	if !ok {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
	}
	return d, ok
}

func files(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

func (h *Hub) revision(w http.ResponseWriter, r *http.Request) {
	dir, ok := h.dir(w, r)
	if !ok {
		return
	}
	var sib []map[string]string
	for _, f := range files(dir) {
		sib = append(sib, map[string]string{"rfilename": f})
	}
	writeJSON(w, map[string]any{"sha": commit(dir), "siblings": sib})
}

func (h *Hub) tree(w http.ResponseWriter, r *http.Request) {
	dir, ok := h.dir(w, r)
	if !ok {
		return
	}
	var out []map[string]any
	for _, f := range files(dir) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		e := map[string]any{"type": "file", "path": f, "size": len(b), "oid": gitOID(b)}
		if f == "model.bin" {
			sum := sha256.Sum256(b)
			e["lfs"] = map[string]any{"oid": hex.EncodeToString(sum[:]), "size": len(b), "pointerSize": 134}
		}
		out = append(out, e)
	}
	writeJSON(w, out)
}

func (h *Hub) resolve(w http.ResponseWriter, r *http.Request) {
	dir, ok := h.dir(w, r)
	if !ok {
		return
	}
	name := r.PathValue("file")
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.NotFound(w, r)
		return
	}
	w.Header().Set("X-Repo-Commit", commit(dir))
	if name == "model.bin" {
		sum := sha256.Sum256(b)
		w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("X-Linked-Size", fmt.Sprint(len(b)))
		http.Redirect(w, r, "/cdn/"+r.PathValue("owner")+"/"+r.PathValue("name")+"/"+name, http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+gitOID(b)+`"`)
	http.ServeFile(w, r, filepath.Join(dir, name))
}

func (h *Hub) cdn(w http.ResponseWriter, r *http.Request) {
	dir, ok := h.dir(w, r)
	if !ok {
		return
	}
	f, err := os.Open(filepath.Join(dir, filepath.Base(r.PathValue("file"))))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	http.ServeContent(w, r, "", time.Time{}, f)
}

// commit is a stable fake commit id for a folder.
func commit(dir string) string {
	sum := sha1.Sum([]byte(dir))
	return hex.EncodeToString(sum[:])
}

func gitOID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
