package models

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Remote is one file that is not a model, downloaded by Fetch with the
// model download's resume, checks and progress (NVIDIA's cuBLAS wheel).
type Remote struct {
	// Name is what progress and messages call it ("cuBLAS 12.4.5.8").
	Name string
	URL  string
	// Dest is where the verified file ends up; the download goes to
	// Dest+".part" until then, and a later Fetch resumes it.
	Dest   string
	Size   int64
	SHA256 string
	// Spare is the disk space needed beside the file once it is in (what
	// it unpacks to); the download is refused at once without it.
	Spare int64
}

// Fetch downloads r into r.Dest unless a file of its size is there already:
// resumed after an interruption (also from an earlier Fetch's .part), its
// size and SHA-256 checked, progress reported as for a model. A file that
// does not match is deleted and the error wraps ErrChecksum; cancelling ctx
// keeps what was fetched. The hub's token is never sent.
func (c *Cache) Fetch(ctx context.Context, r Remote, progress func(Progress)) error {
	if r.URL == "" || r.Dest == "" || r.Size <= 0 || len(r.SHA256) != 64 {
		return fmt.Errorf("fetch %s: a URL, a destination, a size and a SHA-256 are needed", r.Name)
	}
	if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("fetch %s: %q is not an http(s) address", r.Name, r.URL)
	}
	dir, base := filepath.Dir(r.Dest), filepath.Base(r.Dest)
	if st, err := os.Stat(r.Dest); err == nil && st.Size() == r.Size {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return diskErr("create "+dir, err)
	}
	part := r.Dest + ".part"
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = min(st.Size(), r.Size)
	}
	if free, err := c.opts.FreeSpace(dir); err == nil && uint64(r.Size-have+r.Spare)+spaceMargin > free {
		return fmt.Errorf("not enough disk space to download %s into %s: it needs %s (plus %s to spare), only %s is free; free some space: %w",
			r.Name, dir, FormatSize(r.Size-have+r.Spare), FormatSize(spaceMargin), FormatSize(int64(free)), ErrNoSpace)
	}
	f := hubFile{Path: base, Size: r.Size, SHA256: strings.ToLower(r.SHA256), url: r.URL}
	c.log.Info("fetch start", "name", r.Name, "url", r.URL, "bytes", r.Size, "resumed_bytes", have, "dest", r.Dest)
	meter := newMeter(r.Name, r.Size, have, c.progressEvery, c.now, progress)
	meter.file(base)
	if err := c.fetchFile(ctx, r.URL, "", dir, f, meter); err != nil {
		if errors.Is(err, ErrChecksum) {
			_ = os.Remove(part)
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("download of %s cancelled (run it again to resume): %w", r.Name, err)
		}
		return fmt.Errorf("download %s from %s: %w", r.Name, r.URL, err)
	}
	meter.finish()
	c.log.Info("fetch done", "name", r.Name, "dest", r.Dest)
	return nil
}

// fetchStatusError is the error for an answer other than the file from a
// server that is not the hub.
func fetchStatusError(u string, resp *http.Response) error {
	err := fmt.Errorf("%s answered HTTP %d for %s", hostOf(u), resp.StatusCode, u)
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return retryable{fmt.Errorf("%w: try again later", err)}
	}
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%w: %w", err, ErrNotFound)
	}
	return err
}
