package logging

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// rotatingFile appends to path and, before a write would take it past max
// bytes, renames it to path.1 (shifting older ones up and dropping the oldest)
// so that at most keep files exist. Safe for concurrent use.
type rotatingFile struct {
	path string
	max  int64
	keep int

	mu   sync.Mutex
	f    *os.File // nil once closed
	size int64
}

func newRotatingFile(path string, max int64, keep int) (*rotatingFile, error) {
	r := &rotatingFile{path: path, max: max, keep: max1(keep)}
	if err := r.openCurrent(); err != nil {
		return nil, err
	}
	return r, nil
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

func (r *rotatingFile) openCurrent() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat log file: %w", err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, fs.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate closes the current file, shifts path → path.1 → path.2 … (the
// oldest is overwritten) and opens a new, empty path. If a rename fails — on
// Windows another program may hold a file open — logging goes on in the
// current file rather than stopping.
func (r *rotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("close log file: %w", err)
	}
	r.f = nil
	if r.keep == 1 {
		if err := os.Truncate(r.path, 0); err != nil {
			return fmt.Errorf("truncate log file: %w", err)
		}
	}
	for i := r.keep - 1; i >= 1; i-- {
		if err := os.Rename(r.name(i-1), r.name(i)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return r.openCurrent()
}

// name is the path of the i-th file: 0 is the current one.
func (r *rotatingFile) name(i int) string {
	if i == 0 {
		return r.path
	}
	return fmt.Sprintf("%s.%d", r.path, i)
}

// Close closes the file; later writes fail with fs.ErrClosed. Idempotent.
func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
