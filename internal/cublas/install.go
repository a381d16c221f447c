package cublas

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/models"
)

// Fetcher downloads one pinned file with resume and progress (models.Cache).
type Fetcher interface {
	Fetch(ctx context.Context, r models.Remote, progress func(models.Progress)) error
}

// ErrMismatch: the file given or downloaded is not the pinned cuBLAS.
var ErrMismatch = errors.New("not the pinned cuBLAS")

// downloadDir is where the wheel waits, inside the engine folder, until it
// is unpacked; an interrupted download is resumed from there.
const downloadDir = ".cublas-download"

// Installed reports whether dir holds every library of p at its size.
func Installed(dir string, p Pin) bool {
	for _, l := range p.Libs {
		st, err := os.Stat(filepath.Join(dir, l.Name()))
		if err != nil || st.Size() != l.Size {
			return false
		}
	}
	return true
}

// Download fetches p's wheel into dir (the cuda engine folder), resuming an
// earlier attempt, and installs its libraries there (Import). The wheel is
// deleted once they are in.
func Download(ctx context.Context, dir string, p Pin, f Fetcher, progress func(models.Progress), log *slog.Logger) error {
	log = log.With("pkg", "cublas")
	wheel := filepath.Join(dir, downloadDir, p.File())
	err := f.Fetch(ctx, models.Remote{Name: p.Name(), URL: p.URL, Dest: wheel, Size: p.Size, SHA256: p.SHA256, Spare: p.Unpacked()}, progress)
	if err != nil {
		if errors.Is(err, models.ErrChecksum) {
			_ = os.Remove(filepath.Dir(wheel)) // emptied by the failed check
			err = fmt.Errorf("%w: %w", err, ErrMismatch)
		}
		return err
	}
	if err := Import(wheel, dir, p, log); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dir, downloadDir)); err != nil {
		log.Warn("could not remove the downloaded wheel", "dir", filepath.Join(dir, downloadDir), "err", err)
	}
	return nil
}

// Import installs p's libraries into dir from file: the pinned wheel, or
// another zip (such as NVIDIA's redistributable libcublas archive) whose
// libraries are byte for byte the pinned ones. Every library is checked
// against its pinned size and SHA-256 before any is put in place, so a
// wrong file changes nothing in dir.
func Import(file, dir string, p Pin, log *slog.Logger) error {
	sum, err := fileSHA256(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	whole := sum == p.SHA256
	zr, err := zip.OpenReader(file)
	if err != nil {
		return fmt.Errorf("%s is not a zip archive (%v): give the %s wheel (%s) or NVIDIA's libcublas %s zip archive: %w",
			file, err, p.Name(), p.File(), p.Version, ErrMismatch)
	}
	defer zr.Close()
	var tmps []string
	defer func() {
		for _, t := range tmps {
			_ = os.Remove(t)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for _, l := range p.Libs {
		e := member(zr, l, whole)
		if e == nil {
			return fmt.Errorf("%s has no %s (SHA-256 %s; %s takes the %s wheel, SHA-256 %s, from %s): %w",
				file, l.Name(), sum, "whisperkey gpu import", p.File(), p.SHA256, p.URL, ErrMismatch)
		}
		tmp := filepath.Join(dir, l.Name()+".tmp")
		tmps = append(tmps, tmp)
		if err := extract(e, tmp, l); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	for i, l := range p.Libs {
		if err := os.Rename(tmps[i], filepath.Join(dir, l.Name())); err != nil {
			return fmt.Errorf("install %s: %w", l.Name(), err)
		}
	}
	tmps = nil
	log.Info("cuBLAS installed", "version", p.Version, "dir", dir, "from", file, "whole_archive_pinned", whole)
	return nil
}

// member finds l in the archive: at its wheel path in the pinned wheel,
// by file name in any other archive (whose layout is not the wheel's).
func member(zr *zip.ReadCloser, l Lib, whole bool) *zip.File {
	for _, e := range zr.File {
		if whole && e.Name == l.Member {
			return e
		}
		if !whole && strings.EqualFold(filepath.Base(filepath.FromSlash(e.Name)), l.Name()) && !e.FileInfo().IsDir() {
			return e
		}
	}
	return nil
}

// extract writes e to tmp, reading no more than l's size plus one byte, and
// checks it against l's pins.
func extract(e *zip.File, tmp string, l Lib) error {
	r, err := e.Open()
	if err != nil {
		return fmt.Errorf("open %s: %w", e.Name, err)
	}
	defer r.Close()
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(r, l.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unpack %s: %w", e.Name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != l.Size || got != l.SHA256 {
		return fmt.Errorf("its %s is not the pinned one (%d bytes, SHA-256 %s; want %d bytes, SHA-256 %s): %w", e.Name, n, got, l.Size, l.SHA256, ErrMismatch)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var head [6]byte
	if n, _ := io.ReadFull(f, head[:]); n == 6 && bytes.Equal(head[:], []byte{0xfd, '7', 'z', 'X', 'Z', 0}) {
		return "", fmt.Errorf("an .xz archive is not read here: give NVIDIA's nvidia-cublas-cu12 wheel (.whl) instead")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
