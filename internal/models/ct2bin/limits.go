package ct2bin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The largest a model's text files may be, in one place: a file over its cap
// is refused before it is read, so a forged 4 GB file costs nothing. The caps
// leave about ten times the room of the largest real files (measured in
// Systran's faster-whisper models: config.json 2.3 kB, vocabulary.json
// 1.07 MB, vocabulary.txt 0.42 MB, tokenizer.json 3.9 MB for base and
// 2.5 MB for large-v3, preprocessor_config.json 0.3 kB).
const (
	MaxConfigJSON       = 1 << 20  // config.json
	MaxVocabulary       = 16 << 20 // vocabulary.json or vocabulary.txt
	MaxTokenizerJSON    = 32 << 20 // tokenizer.json
	MaxPreprocessorJSON = 1 << 20  // preprocessor_config.json
)

// MaxFileSize is the cap on the model file name, or 0 for model.bin and
// names that are no model file (no cap: model.bin is read by its headers).
func MaxFileSize(name string) int64 {
	switch name {
	case "config.json":
		return MaxConfigJSON
	case "vocabulary.json", "vocabulary.txt":
		return MaxVocabulary
	case "tokenizer.json":
		return MaxTokenizerJSON
	case "preprocessor_config.json":
		return MaxPreprocessorJSON
	}
	return 0
}

// ReadModelFile reads a model's text file whole, refusing one over its cap
// (MaxFileSize) without reading it. A missing file's error is fs.ErrNotExist.
func ReadModelFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, invalid(nil, "%s is not a regular file — re-download the model", path)
	}
	limit := MaxFileSize(filepath.Base(path))
	if limit == 0 {
		return nil, fmt.Errorf("read %s: not a model text file", path)
	}
	if err := CheckFileSize(path, st.Size()); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1)) // the file may grow after the Stat
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, CheckFileSize(path, int64(len(b)))
	}
	return b, nil
}

// CheckFileSize says when a model file of size bytes is over its cap.
func CheckFileSize(path string, size int64) error {
	limit := MaxFileSize(filepath.Base(path))
	if limit == 0 || size <= limit {
		return nil
	}
	return invalid(nil, "%s is %s, more than the %s any Whisper model's %s is (the real ones are far smaller): the file is damaged or not this model's — re-download the model",
		path, byteSize(size), byteSize(limit), filepath.Base(path))
}

// byteSize is n in the largest binary unit that keeps it at 1 or more.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// isNotExist is errors.Is(err, fs.ErrNotExist), for the callers here.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
