package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// hubFile is one file of a repository as the hub's tree API reports it.
type hubFile struct {
	Path   string
	Size   int64
	SHA256 string // LFS files: the content's SHA-256
	GitOID string // other files: the git blob SHA-1
	// url, when set, is where a file that is not in a hub repository comes
	// from (Fetch): no token is sent there, and its errors name its host.
	url string
}

// retryable marks an error after which the same file may be tried again.
type retryable struct{ error }

func (r retryable) Unwrap() error { return r.error }

// stripAuthOnRedirect drops the token when a redirect leaves the hub's host
// (the CDN gets a signed URL and must not see the token), then applies the
// caller's own policy.
func stripAuthOnRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

func (c *Cache) newRequest(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", u, err)
	}
	req.Header.Set("User-Agent", "whisperkey")
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	return req, nil
}

// do sends a request; a failure to get any answer is ErrOffline.
func (c *Cache) do(req *http.Request) (*http.Response, error) {
	resp, err := c.client.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if req.URL.Host != hostOf(c.opts.Endpoint) { // a Fetch from elsewhere
			return nil, retryable{fmt.Errorf("cannot reach %s (%w): %w", req.URL.Scheme+"://"+req.URL.Host, ErrOffline, err)}
		}
		return nil, retryable{fmt.Errorf("cannot reach %s (%w; models already downloaded still work): %w", c.opts.Endpoint, ErrOffline, err)}
	}
	return resp, nil
}

// getJSON fetches an API URL into v and returns the next page's URL from a
// Link rel="next" header (the hub paginates long listings), or "".
func (c *Cache) getJSON(ctx context.Context, repo, u string, v any) (next string, err error) {
	req, err := c.newRequest(ctx, u)
	if err != nil {
		return "", err
	}
	resp, err := c.do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", c.statusError(repo, "", resp)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v); err != nil {
		return "", fmt.Errorf("read %s: %w", u, err)
	}
	return nextLink(resp.Header.Get("Link"), resp.Request.URL), nil
}

// nextLink extracts the rel="next" URL of a Link header.
func nextLink(h string, base *url.URL) string {
	for _, part := range strings.Split(h, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok || !strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
			continue
		}
		target = strings.Trim(strings.TrimSpace(target), "<>")
		u, err := base.Parse(target)
		if err != nil {
			return ""
		}
		return u.String()
	}
	return ""
}

// listFiles asks the hub for the repository's commit and picks the files
// to download, with their sizes and hashes.
func (c *Cache) listFiles(ctx context.Context, repo string) (commit string, files []hubFile, err error) {
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	u := fmt.Sprintf("%s/api/models/%s/revision/%s", c.opts.Endpoint, repo, url.PathEscape(c.opts.Revision))
	if _, err := c.getJSON(ctx, repo, u, &info); err != nil {
		return "", nil, err
	}
	if info.SHA == "" {
		return "", nil, fmt.Errorf("hub answer for %s has no commit sha: is %s a Hugging Face endpoint?", repo, c.opts.Endpoint)
	}

	type treeEntry struct {
		Type string `json:"type"`
		Path string `json:"path"`
		Size int64  `json:"size"`
		OID  string `json:"oid"`
		LFS  *struct {
			OID  string `json:"oid"`
			Size int64  `json:"size"`
		} `json:"lfs"`
	}
	byPath := map[string]hubFile{}
	u = fmt.Sprintf("%s/api/models/%s/tree/%s?recursive=1", c.opts.Endpoint, repo, url.PathEscape(info.SHA))
	for page := 0; u != "" && page < 100; page++ {
		var entries []treeEntry
		if u, err = c.getJSON(ctx, repo, u, &entries); err != nil {
			return "", nil, err
		}
		for _, e := range entries {
			if e.Type != "file" || strings.Contains(e.Path, "/") {
				continue // the model files sit at the top
			}
			f := hubFile{Path: e.Path, Size: e.Size, GitOID: strings.ToLower(e.OID)}
			if e.LFS != nil {
				f.SHA256, f.Size, f.GitOID = strings.ToLower(e.LFS.OID), e.LFS.Size, ""
			}
			if f.Size < 0 {
				return "", nil, fmt.Errorf("hub answer for %s lists %s with size %d: is %s a Hugging Face endpoint?", repo, e.Path, f.Size, c.opts.Endpoint)
			}
			byPath[e.Path] = f
		}
	}

	// The files a CTranslate2 Whisper model needs; of the vocabularies the
	// first present is taken (CTranslate2 prefers .json too).
	requiredFiles := []string{"config.json", "model.bin"}
	vocabularyFiles := []string{"vocabulary.json", "vocabulary.txt"}
	optionalFiles := []string{"preprocessor_config.json", "tokenizer.json"}
	for _, name := range requiredFiles {
		f, ok := byPath[name]
		if !ok {
			return "", nil, notWhisper(repo, name, byPath)
		}
		files = append(files, f)
	}
	vocab := false
	for _, name := range vocabularyFiles {
		if f, ok := byPath[name]; ok {
			files = append(files, f)
			vocab = true
			break
		}
	}
	if !vocab {
		return "", nil, notWhisper(repo, "vocabulary.json", byPath)
	}
	for _, name := range optionalFiles {
		if f, ok := byPath[name]; ok {
			files = append(files, f)
		}
	}
	// Small files first: a broken repository fails before the big download.
	for i := 1; i < len(files); i++ {
		for j := i; j > 0 && files[j].Size < files[j-1].Size; j-- {
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
	return info.SHA, files, nil
}

func notWhisper(repo, missing string, have map[string]hubFile) error {
	var names []string
	for n := range have {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("repository %s is not a CTranslate2 Whisper model: it has no %s (it has %s); pick a faster-whisper repository such as Systran/faster-whisper-small: %w",
		repo, missing, strings.Join(names, ", "), ErrNotFound)
}

// statusError turns a hub answer other than success into an error that names
// the repository (and file) and says what to do.
func (c *Cache) statusError(repo, file string, resp *http.Response) error {
	code := resp.Header.Get("X-Error-Code")
	msg := hubMessage(resp)
	page := c.opts.Endpoint + "/" + repo
	switch {
	case code == "RevisionNotFound":
		return fmt.Errorf("revision %q of model repository %s was not found on Hugging Face (%s): %w", c.opts.Revision, repo, page, ErrNotFound)
	case code == "EntryNotFound" || (file != "" && resp.StatusCode == http.StatusNotFound):
		return fmt.Errorf("file %s was not found in model repository %s (%s): %w", file, repo, page, ErrNotFound)
	case resp.StatusCode == http.StatusNotFound || code == "RepoNotFound":
		hint := "check the repo id in your config"
		if c.opts.Token == "" {
			hint += ", or set HF_TOKEN if it is private"
		}
		return fmt.Errorf("model repository %s was not found on Hugging Face (%s): %s: %w", repo, page, hint, ErrNotFound)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		hint := "set HF_TOKEN to a Hugging Face token that can read it"
		if c.opts.Token != "" {
			hint = "the token in HF_TOKEN cannot read it"
		}
		if code == "GatedRepo" || strings.Contains(strings.ToLower(msg), "gated") {
			hint += ", and accept the model's terms on " + page
		}
		return fmt.Errorf("hugging face refused access to %s (HTTP %d%s): %s: %w", repo, resp.StatusCode, msg, hint, ErrUnauthorized)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return retryable{fmt.Errorf("hugging face answered HTTP %d for %s%s: try again later", resp.StatusCode, repo, msg)}
	default:
		return fmt.Errorf("hugging face answered HTTP %d for %s %s%s", resp.StatusCode, repo, file, msg)
	}
}

// hubMessage extracts the hub's {"error": "..."} text, if any, as ": text".
func hubMessage(resp *http.Response) string {
	if m := resp.Header.Get("X-Error-Message"); m != "" {
		return ": " + m
	}
	var body struct {
		Error string `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if json.Unmarshal(b, &body) == nil && body.Error != "" {
		return ": " + body.Error
	}
	return ""
}

// linkedETag is the hash the hub itself reports for a file, from the
// redirect chain of a resolve request: X-Linked-Etag on the hub's redirect,
// or the ETag of the hub's own answer when it served the file directly.
func linkedETag(resp *http.Response, hubHost string) string {
	var first *http.Response
	for r := resp; r != nil; {
		first = r
		if r.Request == nil {
			break
		}
		r = r.Request.Response
	}
	if first == nil || first.Request == nil || !strings.EqualFold(first.Request.URL.Host, hubHost) {
		return ""
	}
	tag := first.Header.Get("X-Linked-Etag")
	if tag == "" {
		tag = first.Header.Get("ETag")
	}
	return strings.ToLower(strings.Trim(strings.TrimPrefix(tag, "W/"), `"`))
}
