package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// DefaultEndpoint is the Hugging Face hub; HF_ENDPOINT overrides it.
const DefaultEndpoint = "https://huggingface.co"

// markerFile marks a complete, verified model directory and records what was
// installed. A directory without it is never handed out.
const markerFile = ".complete"

// partialDir holds interrupted downloads under the cache directory, so that
// the final rename stays on one file system.
const partialDir = ".partial"

// Options configures a Cache. Zero fields take the defaults stated.
type Options struct {
	// Dir is the cache directory. Default: $WHISPERKEY_CACHE/models, else
	// paths.CacheDir()/models (%LOCALAPPDATA%\whisperkey\models on Windows).
	Dir string
	// Endpoint is the hub's base URL: the config's models.mirror, which wins
	// over HF_ENDPOINT. Default: $HF_ENDPOINT, else DefaultEndpoint.
	Endpoint string
	// Token is sent as "Authorization: Bearer" to the hub (never to the CDN
	// hosts it redirects to). Default: $HF_TOKEN.
	Token string
	// Revision is the branch, tag or commit to download. Default: "main".
	Revision string
	// HTTPClient makes the requests. Default: proxy from the environment,
	// 30 s connect and header timeouts, no overall timeout (models are large).
	HTTPClient *http.Client
	// FreeSpace reports the bytes free for writing under an existing
	// directory. Default: the operating system's figure.
	FreeSpace func(dir string) (uint64, error)
	// Custom are the config's own models: a Name with a Repo or a Local dir.
	Custom []Model

	endpointFrom string // what set Endpoint, filled in by withDefaults
}

// Where the download address came from, as Cache.Endpoint reports it.
const (
	EndpointMirror  = "models.mirror"
	EndpointEnv     = "HF_ENDPOINT"
	EndpointDefault = "default"
)

// withDefaults fills in the zero fields.
func (o Options) withDefaults() (Options, error) {
	if o.Dir == "" {
		d, err := paths.ModelsDir()
		if err != nil {
			return o, err
		}
		o.Dir = d
	}
	abs, err := filepath.Abs(expandHome(o.Dir))
	if err != nil {
		return o, fmt.Errorf("models dir %q: %w", o.Dir, err)
	}
	o.Dir = abs
	o.endpointFrom = EndpointMirror
	if o.Endpoint == "" {
		o.Endpoint, o.endpointFrom = os.Getenv("HF_ENDPOINT"), EndpointEnv
	}
	if o.Endpoint == "" {
		o.Endpoint, o.endpointFrom = DefaultEndpoint, EndpointDefault
	}
	o.Endpoint = strings.TrimRight(o.Endpoint, "/")
	if !strings.HasPrefix(o.Endpoint, "http://") && !strings.HasPrefix(o.Endpoint, "https://") {
		return o, fmt.Errorf("model download address %q (from %s) is not an http(s) URL: set it like https://huggingface.co", o.Endpoint, o.endpointFrom)
	}
	if o.Token == "" {
		o.Token = strings.TrimSpace(os.Getenv("HF_TOKEN"))
	}
	if o.Revision == "" {
		o.Revision = "main"
	}
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 30 * time.Second
		o.HTTPClient = &http.Client{Transport: tr}
	}
	if o.FreeSpace == nil {
		o.FreeSpace = freeSpace
	}
	return o, nil
}

// Cache is the per-user model cache: it resolves model names to directories
// and downloads missing models. Its methods are safe for concurrent use; it
// starts no goroutines.
type Cache struct {
	opts   Options
	log    *slog.Logger
	client *http.Client

	mu   sync.Mutex
	busy map[string]chan struct{} // repo key → closed when its Pull or Remove ends

	// Knobs that tests shorten.
	progressEvery time.Duration // minimum time between progress reports
	retryWait     time.Duration // first wait before retrying a file; doubles
	attempts      int           // tries per file
	stallTimeout  time.Duration // no bytes for this long aborts the attempt
	now           func() time.Time
}

// Entry is one line of List.
type Entry struct {
	Model
	// Downloaded reports a complete model at Path.
	Downloaded bool
	// Path is where the model is (or would be, once pulled).
	Path string
}

// New makes a Cache. It touches neither the disk nor the network.
func New(opts Options, log *slog.Logger) (*Cache, error) {
	if log == nil {
		return nil, errors.New("models.New: nil logger")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	o.Custom = append([]Model(nil), o.Custom...) // the caller's slice stays untouched
	seen := map[string]bool{}
	for i, m := range o.Custom {
		if err := validateCustom(m); err != nil {
			return nil, err
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("custom model name %q is used twice: rename one", m.Name)
		}
		seen[m.Name] = true
		if m.Local != "" {
			abs, err := filepath.Abs(expandHome(m.Local))
			if err != nil {
				return nil, fmt.Errorf("custom model %q dir %q: %w", m.Name, m.Local, err)
			}
			o.Custom[i].Local = abs
		}
		if o.Custom[i].Languages == "" {
			o.Custom[i].Languages = langFromRepo(m.Repo + m.Local)
		}
		o.Custom[i].Multilingual = o.Custom[i].Languages == LangMultilingual
	}
	client := *o.HTTPClient
	client.CheckRedirect = stripAuthOnRedirect(o.HTTPClient.CheckRedirect)
	return &Cache{
		opts:          o,
		log:           log.With("pkg", "models"),
		client:        &client,
		busy:          map[string]chan struct{}{},
		progressEvery: 100 * time.Millisecond,
		retryWait:     time.Second,
		attempts:      4,
		stallTimeout:  60 * time.Second,
		now:           time.Now,
	}, nil
}

// Dir is the cache directory.
func (c *Cache) Dir() string { return c.opts.Dir }

// Endpoint is the base URL every download uses and what set it:
// EndpointMirror, EndpointEnv or EndpointDefault.
func (c *Cache) Endpoint() (url, from string) { return c.opts.Endpoint, c.opts.endpointFrom }

// Lookup interprets a model name: a custom entry, a built-in name, a local
// directory (absolute, starting with "." or "~", or existing with a
// model.bin) or a Hugging Face repo id "owner/name".
func (c *Cache) Lookup(name string) (Model, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Model{}, fmt.Errorf("empty model name: use one of %s, a Hugging Face repo id owner/name, or a directory: %w", registryNames(), ErrNotFound)
	}
	for _, m := range c.opts.Custom {
		if m.Name == name {
			return m, nil
		}
	}
	for _, m := range Registry() {
		if m.Name == name || strings.EqualFold(m.Repo, name) {
			return m, nil
		}
	}
	if m, ok := c.importedModel(name); ok {
		return m, nil
	}
	local := expandHome(name)
	if pathLike(name) || fileExists(filepath.Join(local, "model.bin")) {
		abs, err := filepath.Abs(local)
		if err != nil {
			return Model{}, fmt.Errorf("model directory %q: %w", name, err)
		}
		lang := langFromRepo(filepath.Base(abs))
		return Model{Name: name, Local: abs, Languages: lang, Multilingual: lang == LangMultilingual}, nil
	}
	if validRepoID(name) {
		lang := langFromRepo(name)
		return Model{Name: name, Repo: name, Languages: lang, Multilingual: lang == LangMultilingual}, nil
	}
	return Model{}, fmt.Errorf("unknown model %q: use one of %s, a Hugging Face repo id owner/name, or a directory containing model.bin: %w", name, registryNames(), ErrNotFound)
}

// Resolve returns the directory of a model that can be loaded now, with no
// network: a complete download in the cache or a local directory holding
// model.bin.
func (c *Cache) Resolve(name string) (dir string, ok bool) {
	m, err := c.Lookup(name)
	if err != nil {
		return "", false
	}
	if m.Local != "" && !m.Imported {
		return m.Local, fileExists(filepath.Join(m.Local, "model.bin"))
	}
	if m.Imported {
		dir = m.Local
	} else {
		dir = c.repoDir(m.Repo)
	}
	return dir, c.installed(dir)
}

// List shows the built-in models, the custom ones and any other repository
// found in the cache, with whether each is downloaded.
func (c *Cache) List() []Entry {
	var out []Entry
	known := map[string]bool{}
	add := func(m Model) {
		e := Entry{Model: m}
		if m.Imported {
			e.Path, e.Downloaded = m.Local, c.installed(m.Local)
		} else if m.Local != "" {
			e.Path = m.Local
			e.Downloaded = fileExists(filepath.Join(m.Local, "model.bin"))
		} else {
			known[repoKey(m.Repo)] = true
			e.Path = c.repoDir(m.Repo)
			if man, err := readManifest(e.Path); err == nil && fileExists(filepath.Join(e.Path, "model.bin")) {
				e.Downloaded = true
				e.Size = man.size()
			}
		}
		out = append(out, e)
	}
	for _, m := range Registry() {
		add(m)
	}
	for _, m := range c.opts.Custom {
		add(m)
	}
	for _, m := range c.imported() {
		add(m)
	}
	dirents, err := os.ReadDir(c.opts.Dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		c.log.Warn("read models dir", "dir", c.opts.Dir, "err", err)
	}
	var extra []Model
	for _, d := range dirents {
		if !d.IsDir() || known[d.Name()] || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		man, err := readManifest(filepath.Join(c.opts.Dir, d.Name()))
		if err != nil || repoKey(man.Repo) != d.Name() {
			continue // not ours (e.g. a directory made by hand)
		}
		lang := langFromRepo(man.Repo)
		extra = append(extra, Model{Name: man.Repo, Repo: man.Repo, Languages: lang, Multilingual: lang == LangMultilingual})
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].Name < extra[j].Name })
	for _, m := range extra {
		add(m)
	}
	return out
}

// Remove deletes a downloaded model and any interrupted download of it.
func (c *Cache) Remove(name string) error {
	m, err := c.Lookup(name)
	if err != nil {
		return err
	}
	if m.Imported {
		return c.removeImported(m)
	}
	if m.Local != "" {
		return fmt.Errorf("model %q is the directory %s, not a download: delete it yourself if you no longer want it", name, m.Local)
	}
	key := repoKey(m.Repo)
	unlock, ok := c.tryLock(key)
	if !ok {
		return fmt.Errorf("model %q is being downloaded: cancel the download first", name)
	}
	defer unlock()
	dir := c.repoDir(m.Repo)
	partial := filepath.Join(c.opts.Dir, partialDir, key)
	if !dirExists(dir) && !dirExists(partial) {
		return fmt.Errorf("model %q is not downloaded (nothing at %s): %w", name, dir, ErrNotFound)
	}
	if dirExists(dir) {
		if err := c.trash(name, key, dir); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(partial); err != nil {
		return fmt.Errorf("remove interrupted download of %q: %w", name, err)
	}
	c.removeEmptyPartialRoot()
	c.log.Info("model removed", "model", name, "dir", dir)
	return nil
}

// trash deletes a model folder, renaming it out of the way first so that
// no reader ever sees a half-deleted model.
func (c *Cache) trash(name, key, dir string) error {
	trash := filepath.Join(c.opts.Dir, partialDir, fmt.Sprintf(".trash-%s-%d", key, c.now().UnixNano()))
	if err := os.MkdirAll(filepath.Dir(trash), 0o755); err != nil {
		return fmt.Errorf("remove model %q: %w", name, err)
	}
	if err := os.Rename(dir, trash); err != nil {
		return fmt.Errorf("remove model %q at %s (is WhisperKey still using it? switch to another model first): %w", name, dir, err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("remove model %q: %w", name, err)
	}
	return nil
}

// removeImported deletes an imported model's copy (not its source).
func (c *Cache) removeImported(m Model) error {
	key := "imported--" + m.Name
	unlock, ok := c.tryLock(key)
	if !ok {
		return fmt.Errorf("model %q is being imported: wait for the import to end", m.Name)
	}
	defer unlock()
	if err := c.trash(m.Name, key, m.Local); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(c.opts.Dir, importedDir)) // fails while not empty, as intended
	c.removeEmptyPartialRoot()
	c.log.Info("imported model removed", "model", m.Name, "dir", m.Local)
	return nil
}

func (c *Cache) repoDir(repo string) string { return filepath.Join(c.opts.Dir, repoKey(repo)) }

// installed reports a complete model directory.
func (c *Cache) installed(dir string) bool {
	return fileExists(filepath.Join(dir, markerFile)) && fileExists(filepath.Join(dir, "model.bin"))
}

func (c *Cache) removeEmptyPartialRoot() {
	_ = os.Remove(filepath.Join(c.opts.Dir, partialDir)) // fails while not empty, as intended
}

// lockDir holds one lock file per repository under the cache directory.
const lockDir = ".locks"

// lock serialises Pull and Remove of one repository, within this process and
// across processes (`whisperkey models pull` beside the running app), so two
// downloads never write the same partial files.
func (c *Cache) lock(ctx context.Context, key string) (unlock func(), err error) {
	local, err := c.lockLocal(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(c.opts.Dir, lockDir), 0o755); err != nil {
		local()
		return nil, diskErr("create the lock folder", err)
	}
	fl := flock.New(filepath.Join(c.opts.Dir, lockDir, key+".lock"))
	ok, err := fl.TryLock()
	if err == nil && !ok {
		c.log.Info("another WhisperKey process is downloading this model; waiting for it", "lock", fl.Path())
		ok, err = fl.TryLockContext(ctx, 100*time.Millisecond)
	}
	if err != nil || !ok {
		local()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("lock %s: %w", fl.Path(), err)
	}
	return func() {
		if err := fl.Unlock(); err != nil {
			c.log.Warn("unlock model download", "lock", fl.Path(), "err", err)
		}
		local()
	}, nil
}

// lockLocal serialises Pull and Remove of one repository within this process.
func (c *Cache) lockLocal(ctx context.Context, key string) (unlock func(), err error) {
	for {
		unlock, ok := c.tryLock(key)
		if ok {
			return unlock, nil
		}
		c.mu.Lock()
		ch := c.busy[key]
		c.mu.Unlock()
		if ch == nil {
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *Cache) tryLock(key string) (unlock func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.busy[key]; held {
		return nil, false
	}
	ch := make(chan struct{})
	c.busy[key] = ch
	return func() {
		c.mu.Lock()
		delete(c.busy, key)
		c.mu.Unlock()
		close(ch)
	}, true
}

// manifest is the content of the marker file.
type manifest struct {
	Repo string `json:"repo,omitempty"`
	// Name, Source and Languages are set for an imported model: the name it
	// answers to, the folder or zip it came from, and LangEnglish or
	// LangMultilingual as its vocabulary says.
	Name      string         `json:"name,omitempty"`
	Source    string         `json:"source,omitempty"`
	Languages string         `json:"languages,omitempty"`
	Revision  string         `json:"revision,omitempty"`
	Installed time.Time      `json:"installed"`
	Files     []manifestFile `json:"files"`
}

type manifestFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	GitOID string `json:"git_oid,omitempty"`
}

func (m manifest) size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

func readManifest(dir string) (manifest, error) {
	var m manifest
	b, err := os.ReadFile(filepath.Join(dir, markerFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", filepath.Join(dir, markerFile), err)
	}
	return m, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
