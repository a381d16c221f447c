package models

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// spaceMargin is kept free beyond the download itself, so that a pull never
// leaves the disk completely full.
const spaceMargin = 100 << 20

// revisionFile records which commit the files in a partial download belong
// to; a partial download of another commit is discarded.
const revisionFile = ".revision"

var errStalled = errors.New("no data received for too long")

// Pull makes a model available and returns its directory. A model already in
// the cache (or a local directory) is returned with no network access.
// Otherwise its files are downloaded from the hub, resuming an interrupted
// download, verified against the sizes and hashes the hub reports and
// installed atomically. progress (may be nil) is called from Pull's
// goroutine. Cancelling ctx stops the download and keeps what was fetched
// for the next Pull.
func (c *Cache) Pull(ctx context.Context, name string, progress func(Progress)) (dir string, err error) {
	m, err := c.Lookup(name)
	if err != nil {
		return "", err
	}
	if m.Local != "" {
		if fileExists(filepath.Join(m.Local, "model.bin")) {
			return m.Local, nil
		}
		return "", fmt.Errorf("model directory %s has no model.bin: point %q at a CTranslate2 Whisper model directory: %w", m.Local, name, ErrNotFound)
	}
	key := repoKey(m.Repo)
	unlock, err := c.lock(ctx, key)
	if err != nil {
		return "", fmt.Errorf("pull %s: %w", name, err)
	}
	defer unlock()
	dir = c.repoDir(m.Repo)
	if c.installed(dir) {
		return dir, nil
	}

	log := c.log.With("model", name, "repo", m.Repo)
	commit, files, err := c.listFiles(ctx, m.Repo)
	if err != nil {
		return "", fmt.Errorf("pull %s: %w", name, err)
	}
	partial := filepath.Join(c.opts.Dir, partialDir, key)
	var total int64
	for _, f := range files {
		total += f.Size
	}
	have := partialBytes(partial, commit, files)
	if err := c.checkSpace("pull "+name, total-have); err != nil {
		return "", err
	}
	if err := preparePartial(partial, commit); err != nil {
		return "", c.fail(partial, name, err)
	}
	log.Info("download start", "commit", commit, "bytes", total, "resumed_bytes", have, "dir", dir)
	start := c.now()
	meter := newMeter(name, total, have, c.progressEvery, c.now, progress)
	for _, f := range files {
		meter.file(f.Path)
		if err := c.fetchFile(ctx, m.Repo, commit, partial, f, meter); err != nil {
			return "", c.fail(partial, name, err)
		}
	}
	meter.finish()
	man := manifest{Repo: m.Repo, Revision: commit, Installed: c.now().UTC()}
	for _, f := range files {
		man.Files = append(man.Files, manifestFile{Path: f.Path, Size: f.Size, SHA256: f.SHA256, GitOID: f.GitOID})
	}
	if err := c.install(partial, dir, man); err != nil {
		return "", c.fail(partial, name, err)
	}
	log.Info("download done", "dir", dir, "bytes", total, "seconds", c.now().Sub(start).Seconds())
	return dir, nil
}

// fail cleans up after a failed pull: a corrupt or disk-full download is
// deleted, anything else (cancel, network) is kept to be resumed.
func (c *Cache) fail(partial, name string, err error) error {
	if errors.Is(err, ErrChecksum) || errors.Is(err, ErrNoSpace) {
		if rmErr := os.RemoveAll(partial); rmErr != nil {
			c.log.Warn("remove failed download", "dir", partial, "err", rmErr)
		}
		c.removeEmptyPartialRoot()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("pull %s cancelled (run pull again to resume): %w", name, err)
	}
	return fmt.Errorf("pull %s: %w", name, err)
}

// checkSpace refuses a download that would not fit, before anything is written.
// what says the work: "pull base.en", "import office".
func (c *Cache) checkSpace(what string, need int64) error {
	probe := c.opts.Dir
	for !dirExists(probe) {
		parent := filepath.Dir(probe)
		if parent == probe {
			break
		}
		probe = parent
	}
	free, err := c.opts.FreeSpace(probe)
	if err != nil {
		c.log.Warn("free space unknown; downloading anyway", "dir", probe, "err", err)
		return nil
	}
	if need < 0 {
		need = 0
	}
	if uint64(need)+spaceMargin > free {
		return fmt.Errorf("not enough disk space to %s into %s: it needs %s (plus %s to spare), only %s is free; free some space or set another models directory: %w",
			what, c.opts.Dir, FormatSize(need), FormatSize(spaceMargin), FormatSize(int64(free)), ErrNoSpace)
	}
	return nil
}

// partialBytes counts the bytes of an earlier download of the same commit
// that the next pull keeps.
func partialBytes(partial, commit string, files []hubFile) int64 {
	b, err := os.ReadFile(filepath.Join(partial, revisionFile))
	if err != nil || strings.TrimSpace(string(b)) != commit {
		return 0
	}
	var n int64
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(partial, f.Path)); err == nil && st.Size() == f.Size {
			n += f.Size
		} else if st, err := os.Stat(filepath.Join(partial, f.Path+".part")); err == nil {
			n += min(st.Size(), f.Size)
		}
	}
	return n
}

// preparePartial makes the partial directory for a commit, discarding one
// left by another commit.
func preparePartial(partial, commit string) error {
	rev := filepath.Join(partial, revisionFile)
	if b, err := os.ReadFile(rev); err == nil && strings.TrimSpace(string(b)) == commit {
		return nil
	}
	if err := os.RemoveAll(partial); err != nil {
		return fmt.Errorf("clear old partial download %s: %w", partial, err)
	}
	if err := os.MkdirAll(partial, 0o755); err != nil {
		return diskErr(fmt.Sprintf("create %s", partial), err)
	}
	if err := os.WriteFile(rev, []byte(commit+"\n"), 0o644); err != nil {
		return diskErr(fmt.Sprintf("write %s", rev), err)
	}
	return nil
}

// diskErr wraps a file system error, marking a full disk as ErrNoSpace.
func diskErr(what string, err error) error {
	if isDiskFull(err) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in what already
		}
		return fmt.Errorf("%s: disk full, free some space and pull again: %w (%w)", what, ErrNoSpace, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// fetchFile downloads one file into the partial directory, retrying (with a
// Range request from where it stopped) after network failures, and leaves it
// verified under its own name.
func (c *Cache) fetchFile(ctx context.Context, repo, commit, partial string, f hubFile, meter *meter) error {
	final := filepath.Join(partial, f.Path)
	if st, err := os.Stat(final); err == nil && st.Size() == f.Size {
		return nil // verified by an earlier pull of this commit
	}
	part := final + ".part"
	wait := c.retryWait
	for attempt := 1; ; attempt++ {
		err := c.fetchOnce(ctx, repo, commit, part, f, meter)
		if err == nil {
			break
		}
		var r retryable
		if ctx.Err() != nil || !errors.As(err, &r) || attempt >= c.attempts {
			if errors.As(err, &r) && f.url != "" {
				return fmt.Errorf("%w (run it again to resume)", r.error)
			}
			if errors.As(err, &r) {
				return fmt.Errorf("%w (pull again to resume)", r.error)
			}
			return err
		}
		c.log.Warn("download interrupted; resuming", "file", f.Path, "attempt", attempt, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		wait *= 2
	}
	if err := os.Rename(part, final); err != nil {
		return fmt.Errorf("rename %s: %w", part, err)
	}
	return nil
}

// fetchOnce makes one request for the rest of a file and appends it.
func (c *Cache) fetchOnce(ctx context.Context, repo, commit, part string, f hubFile, meter *meter) error {
	fh, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return diskErr("open "+part, err)
	}
	defer fh.Close()
	offset, err := fh.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("seek %s: %w", part, err)
	}
	restart := func() error {
		meter.add(-min(offset, f.Size))
		offset = 0
		if err := fh.Truncate(0); err != nil {
			return fmt.Errorf("truncate %s: %w", part, err)
		}
		_, err := fh.Seek(0, io.SeekStart)
		return err
	}
	if offset > f.Size {
		if err := restart(); err != nil {
			return err
		}
	}
	v := newVerifier(f)
	if offset > 0 {
		// Hash what is already there, so the whole file is verified without
		// reading it again at the end.
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("seek %s: %w", part, err)
		}
		if _, err := io.CopyN(v, fh, offset); err != nil {
			return fmt.Errorf("read %s: %w", part, err)
		}
	}
	if offset < f.Size {
		if err := c.request(ctx, repo, commit, f, fh, &offset, v, meter, restart); err != nil {
			return err
		}
	}
	if offset != f.Size {
		return retryable{fmt.Errorf("download %s: connection closed after %d of %d bytes: %w", f.Path, offset, f.Size, io.ErrUnexpectedEOF)}
	}
	if err := fh.Sync(); err != nil {
		return diskErr("sync "+part, err)
	}
	return v.check(repo)
}

// request GETs a file from offset on and copies the body into fh.
func (c *Cache) request(ctx context.Context, repo, commit string, f hubFile, fh *os.File, offset *int64, v *verifier, meter *meter, restart func() error) error {
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	u := fmt.Sprintf("%s/%s/resolve/%s/%s", c.opts.Endpoint, repo, url.PathEscape(commit), url.PathEscape(f.Path))
	if f.url != "" {
		u = f.url
	}
	req, err := c.newRequest(reqCtx, u)
	if err != nil {
		return err
	}
	if f.url != "" {
		req.Header.Del("Authorization") // the hub's token is for the hub
	}
	if *offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", *offset))
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		if *offset > 0 { // the server ignored the range: start over
			if err := restart(); err != nil {
				return err
			}
			v.reset()
		}
	case http.StatusPartialContent:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != *offset {
			if err := restart(); err != nil {
				return err
			}
			return retryable{fmt.Errorf("download %s: server resumed at %q, not at byte %d", f.Path, resp.Header.Get("Content-Range"), *offset)}
		}
	case http.StatusRequestedRangeNotSatisfiable:
		if err := restart(); err != nil {
			return err
		}
		return retryable{fmt.Errorf("download %s: server refused to resume at byte %d", f.Path, *offset)}
	default:
		if f.url != "" {
			return fetchStatusError(u, resp)
		}
		return c.statusError(repo, f.Path, resp)
	}
	if err := v.crossCheck(linkedETag(resp, hostOf(c.opts.Endpoint))); err != nil {
		return err
	}

	stall := time.AfterFunc(c.stallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()
	body := io.LimitReader(resp.Body, f.Size-*offset+1) // one byte more shows an oversized file
	buf := make([]byte, 256<<10)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			stall.Reset(c.stallTimeout)
			if *offset+int64(n) > f.Size {
				return fmt.Errorf("%s of %s is larger than the %d bytes the hub reports: %w", f.Path, repo, f.Size, ErrChecksum)
			}
			if _, werr := fh.Write(buf[:n]); werr != nil {
				return diskErr(fmt.Sprintf("write %s", fh.Name()), werr)
			}
			v.Write(buf[:n])
			*offset += int64(n)
			meter.add(int64(n))
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(context.Cause(reqCtx), errStalled) {
				return retryable{fmt.Errorf("download %s: %w (%s)", f.Path, errStalled, c.stallTimeout)}
			}
			return retryable{fmt.Errorf("download %s: %w", f.Path, rerr)}
		}
	}
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Host
}

// rangeStart parses the first byte of "bytes 100-199/200".
func rangeStart(h string) (int64, bool) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	first, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(first, 10, 64)
	return n, err == nil
}

// verifier hashes a file as it is written and checks it against the hub's
// figures: SHA-256 for LFS files, the git blob SHA-1 for the small ones.
type verifier struct {
	f    hubFile
	h    hash.Hash
	kind string
	want string
	size int64
}

func newVerifier(f hubFile) *verifier {
	v := &verifier{f: f}
	v.reset()
	return v
}

func (v *verifier) reset() {
	v.size = 0
	switch {
	case v.f.SHA256 != "":
		v.h, v.kind, v.want = sha256.New(), "SHA-256", v.f.SHA256
	case v.f.GitOID != "":
		v.h, v.kind, v.want = sha1.New(), "git blob SHA-1", v.f.GitOID
		fmt.Fprintf(v.h, "blob %d\x00", v.f.Size)
	default:
		v.h, v.kind, v.want = nil, "", ""
	}
}

func (v *verifier) Write(p []byte) (int, error) {
	v.size += int64(len(p))
	if v.h != nil {
		v.h.Write(p)
	}
	return len(p), nil
}

// crossCheck compares the tree's hash with the one on the resolve answer;
// when the tree gave none, the resolve answer's is used.
func (v *verifier) crossCheck(tag string) error {
	if !isHex(tag) || (len(tag) != 64 && len(tag) != 40) {
		return nil
	}
	if v.want == "" && v.size == 0 {
		v.f.SHA256, v.f.GitOID = "", ""
		if len(tag) == 64 {
			v.f.SHA256 = tag
		} else {
			v.f.GitOID = tag
		}
		v.reset()
		return nil
	}
	if len(tag) == 64 && v.f.SHA256 != "" && tag != v.f.SHA256 {
		return fmt.Errorf("%s: the hub lists SHA-256 %s but serves %s: %w", v.f.Path, v.f.SHA256, tag, ErrChecksum)
	}
	return nil
}

func (v *verifier) check(repo string) error {
	if v.f.url != "" {
		return v.checkPinned()
	}
	if v.size != v.f.Size {
		return fmt.Errorf("%s of %s has %d bytes, the hub reports %d; the download was deleted, pull again: %w", v.f.Path, repo, v.size, v.f.Size, ErrChecksum)
	}
	if v.h == nil {
		return nil
	}
	if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want {
		return fmt.Errorf("%s of %s does not match its %s (got %s, the hub reports %s); the download was deleted, pull again: %w", v.f.Path, repo, v.kind, got, v.want, ErrChecksum)
	}
	return nil
}

// checkPinned checks a Fetch: its size and SHA-256 are the caller's pins.
func (v *verifier) checkPinned() error {
	if v.size != v.f.Size {
		return fmt.Errorf("%s has %d bytes, WhisperKey expects %d; the download was deleted, run it again: %w", v.f.url, v.size, v.f.Size, ErrChecksum)
	}
	if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want {
		return fmt.Errorf("%s does not match the SHA-256 WhisperKey pins (got %s, want %s); the download was deleted, run it again: %w", v.f.url, got, v.want, ErrChecksum)
	}
	return nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && s != ""
}

// install turns the verified partial directory into the model directory in
// one rename, after writing the marker inside it.
func (c *Cache) install(partial, dir string, man manifest) error {
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	marker := filepath.Join(partial, markerFile)
	if err := writeSynced(marker, b); err != nil {
		return diskErr("write "+marker, err)
	}
	if err := os.Remove(filepath.Join(partial, revisionFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("install %s: %w", dir, err)
	}
	if dirExists(dir) {
		// A leftover without marker (a crash while removing): nothing loads it.
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("replace incomplete %s: %w", dir, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return diskErr("create "+filepath.Dir(dir), err)
	}
	if err := os.Rename(partial, dir); err != nil {
		return fmt.Errorf("install %s: %w", dir, err)
	}
	c.removeEmptyPartialRoot()
	return nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
