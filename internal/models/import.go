package models

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// importedDir holds imported models under the cache directory, one folder
// per name. Repository folders are "owner--name", so the two never meet.
const importedDir = "imported"

// ErrBadImport: the folder or zip given to Import is not a CTranslate2
// Whisper model, or the archive is unsafe or damaged. Nothing is imported.
var ErrBadImport = errors.New("not an importable model")

// ErrExists: a model of that name is already there.
var ErrExists = errors.New("model name taken")

// modelFiles are the files of a model directory that are imported, the ones
// faster-whisper downloads; anything else beside them (a README, .git) is not.
var modelFiles = []string{"model.bin", "config.json", "vocabulary.json", "vocabulary.txt", "tokenizer.json", "preprocessor_config.json"}

// maxZipRatio bounds how much an entry may expand: Whisper weights and JSON
// compress a few times at most, a zip bomb a thousand times.
const maxZipRatio = 100

// ImportResult is what Import installed.
type ImportResult struct {
	Name string
	Dir  string
	// Info is the model as ct2bin read it from the installed copy.
	Info *ct2bin.Info
	// NoTokenizer: the model has no tokenizer.json, so it transcribes but
	// cannot take a vocabulary or a prompt.
	NoTokenizer bool
}

// Import copies a CTranslate2 Whisper model from a folder or a .zip of one
// into the cache and registers it under name (default: the folder's or the
// zip's base name), so that Lookup, Resolve, List and Remove treat it like a
// downloaded model. The files are checked before and after the copy, which
// goes to a temporary folder inside the cache that is renamed into place only
// when complete: a failure or a cancel leaves nothing behind. progress (may
// be nil) is called from Import's goroutine.
func (c *Cache) Import(ctx context.Context, src, name string, progress func(Progress)) (ImportResult, error) {
	src = expandHome(src)
	st, err := os.Stat(src)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w (give the path of a model folder or a .zip of one)", src, err)
	}
	if name == "" {
		name = defaultImportName(src, st.IsDir())
	}
	if err := c.checkImportName(name); err != nil {
		return ImportResult{}, err
	}
	var s importSource
	switch {
	case st.IsDir():
		if s, err = openFolder(src); err == nil {
			// A folder is checked in place first (headers only, quick), so
			// a broken one fails before gigabytes are copied.
			if _, ierr := checkModel(src); ierr != nil {
				err = &importError{msg: ierr.Error() + "; nothing was imported", err: ierr}
			}
		}
	case st.Mode().IsRegular():
		s, err = openZip(src)
	default:
		err = badImport("%s is neither a folder nor a file: give the path of a model folder or a .zip of one", src)
	}
	if err != nil {
		return ImportResult{}, err
	}
	defer s.Close()

	unlock, err := c.lock(ctx, "imported--"+name)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w", name, err)
	}
	defer unlock()
	dir := c.importedPath(name)
	if _, err := os.Lstat(dir); err == nil { // checked again under the lock
		return ImportResult{}, existsErr(name, dir)
	}
	var total int64
	for _, f := range s.files() {
		total += f.size
	}
	if err := c.checkSpace("import "+name, total); err != nil {
		return ImportResult{}, err
	}
	parent := filepath.Join(c.opts.Dir, partialDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return ImportResult{}, diskErr("create "+parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "import-"+name+"-")
	if err != nil {
		return ImportResult{}, diskErr("create a folder in "+parent, err)
	}
	done := false
	defer func() {
		if !done {
			if err := os.RemoveAll(tmp); err != nil {
				c.log.Warn("remove failed import", "dir", tmp, "err", err)
			}
			c.removeEmptyPartialRoot()
		}
	}()

	log := c.log.With("model", name, "source", src)
	log.Info("import start", "bytes", total)
	meter := newMeter(name, total, 0, c.progressEvery, c.now, progress)
	man := manifest{Name: name, Source: src, Installed: c.now().UTC()}
	for _, f := range s.files() {
		meter.file(f.name)
		sum, err := copyFile(ctx, f, filepath.Join(tmp, f.name), meter)
		if err != nil {
			if ctx.Err() != nil {
				return ImportResult{}, fmt.Errorf("import %s cancelled; nothing was imported: %w", name, ctx.Err())
			}
			return ImportResult{}, fmt.Errorf("import %s from %s: %w; nothing was imported", name, s.where(), err)
		}
		man.Files = append(man.Files, manifestFile{Path: f.name, Size: f.size, SHA256: sum})
	}
	meter.finish()
	// The copy is what will be loaded, so it is what is checked.
	info, err := checkModel(tmp)
	if err != nil {
		return ImportResult{}, &importError{msg: fmt.Sprintf("%s; nothing was imported (copy or download the model again)", strings.ReplaceAll(err.Error(), tmp, s.where())), err: err}
	}
	man.Languages = LangEnglish
	if info.Multilingual {
		man.Languages = LangMultilingual
	}
	if err := c.install(tmp, dir, man); err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w; nothing was imported", name, err)
	}
	done = true
	log.Info("import done", "dir", dir, "bytes", total)
	return ImportResult{Name: name, Dir: dir, Info: info, NoTokenizer: !fileExists(filepath.Join(dir, "tokenizer.json"))}, nil
}

// checkModel checks a model folder as loading it will use it: every
// model.bin tensor against config.json and the vocabulary (ct2bin), and the
// tokenizer, loaded once here rather than failing every transcription.
func checkModel(dir string) (*ct2bin.Info, error) {
	info, err := ct2bin.Inspect(dir)
	if err != nil {
		return nil, err
	}
	if _, err := whisper.LoadTokenizer(dir); err != nil {
		return nil, err
	}
	return info, nil
}

// defaultImportName is a folder's name, or a zip's without its extension.
func defaultImportName(src string, isDir bool) string {
	base := filepath.Base(filepath.Clean(src))
	if !isDir && strings.EqualFold(filepath.Ext(base), ".zip") {
		base = base[:len(base)-len(".zip")]
	}
	return base
}

// importedPath is where the imported model name lives.
func (c *Cache) importedPath(name string) string {
	return filepath.Join(c.opts.Dir, importedDir, name)
}

// checkImportName refuses a name that is not a plain name or that another
// model answers to already.
func (c *Cache) checkImportName(name string) error {
	const rule = "letters, digits, '.', '-' and '_', at most 96 characters, not starting with '.' or '-'"
	if !validImportName(name) {
		return fmt.Errorf("%q cannot be a model name (%s): give one with --name NAME: %w", name, rule, ErrBadImport)
	}
	if strings.EqualFold(name, choice.ModelAuto) {
		return fmt.Errorf(`"auto" is the config's value for "pick a model for this computer": give another name with --name NAME: %w`, ErrExists)
	}
	for _, m := range Registry() {
		if strings.EqualFold(m.Name, name) {
			return fmt.Errorf("%q is the name of a built-in model: give the import another name with --name NAME, such as %s-local: %w", name, m.Name, ErrExists)
		}
	}
	for _, m := range c.opts.Custom {
		if strings.EqualFold(m.Name, name) {
			return fmt.Errorf("%q is the name of a custom model in the config: give the import another name with --name NAME: %w", name, ErrExists)
		}
	}
	if dir := c.importedPath(name); dirExists(dir) {
		return existsErr(name, dir)
	}
	return nil
}

func existsErr(name, dir string) error {
	return fmt.Errorf("a model named %q is already imported (%s): give this one another name with --name NAME, or remove the old one first with `whisperkey models rm %s`: %w", name, dir, name, ErrExists)
}

// validImportName accepts names that are a plain file name on every system
// and that Lookup cannot mistake for a path or a repo id.
func validImportName(s string) bool {
	if s == "" || len(s) > 96 || strings.ContainsAny(s[:1], ".-") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	// Windows reserves these as device names, with any extension.
	stem, _, _ := strings.Cut(strings.ToUpper(s), ".")
	reserved := []string{"CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}
	return !slices.Contains(reserved, stem) && !strings.HasSuffix(s, ".")
}

// importedModel is the Model of an imported folder, from its manifest.
func (c *Cache) importedModel(name string) (Model, bool) {
	if !validImportName(name) {
		return Model{}, false
	}
	dir := c.importedPath(name)
	man, err := readManifest(dir)
	if err != nil || man.Name != name || !fileExists(filepath.Join(dir, "model.bin")) {
		return Model{}, false
	}
	lang := man.Languages
	if lang != LangEnglish {
		lang = LangMultilingual
	}
	return Model{Name: name, Local: dir, Imported: true, Languages: lang, Multilingual: lang == LangMultilingual, Size: man.size()}, true
}

// imported lists the imported models by name.
func (c *Cache) imported() []Model {
	dirents, err := os.ReadDir(filepath.Join(c.opts.Dir, importedDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		c.log.Warn("read imported models", "dir", filepath.Join(c.opts.Dir, importedDir), "err", err)
	}
	var out []Model
	for _, d := range dirents {
		if m, ok := c.importedModel(d.Name()); ok && d.IsDir() {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// importError is a user-facing message that keeps its cause for errors.Is.
type importError struct {
	msg string
	err error
}

func (e *importError) Error() string   { return e.msg }
func (e *importError) Unwrap() []error { return []error{ErrBadImport, e.err} }

func badImport(format string, args ...any) error {
	return &importError{msg: fmt.Sprintf(format, args...), err: ErrBadImport}
}

// importSource is a folder or a zip: the model files to copy.
type importSource interface {
	files() []importFile
	// where names the source in messages in place of the copy's folder.
	where() string
	Close() error
}

// importFile is one model file of the source.
type importFile struct {
	name string // as in the model folder: "model.bin"
	size int64  // as the source states it; the copy must match
	open func() (io.ReadCloser, error)
	// zipped: read through archive/zip, which checks the entry's size and
	// CRC-32 against its header.
	zipped bool
}

// need says what a model folder must hold before anything is copied, with
// the fix; the contents are checked by ct2bin after the copy.
func need(where string, have func(string) bool) error {
	if !have("model.bin") {
		return badImport("%s holds no model.bin, so it is not a CTranslate2 Whisper model: import the folder that holds model.bin, config.json and vocabulary.json (a faster-whisper model such as a copy of Systran/faster-whisper-base)", where)
	}
	if !have("config.json") {
		return badImport("%s has model.bin but no config.json: copy the whole model folder (model.bin, config.json, vocabulary.json, tokenizer.json), not model.bin alone", where)
	}
	if !have("vocabulary.json") && !have("vocabulary.txt") && !have("tokenizer.json") {
		return badImport("%s has neither vocabulary.json nor tokenizer.json: copy the whole model folder (model.bin, config.json, vocabulary.json, tokenizer.json)", where)
	}
	if !have("vocabulary.json") && !have("vocabulary.txt") {
		return badImport("%s has tokenizer.json but no vocabulary.json, which CTranslate2 needs: convert the model with ct2-transformers-converter, which writes it, or copy it from the same model's download", where)
	}
	return nil
}

type folderSource struct {
	dir string
	fs  []importFile
}

func openFolder(dir string) (*folderSource, error) {
	s := &folderSource{dir: dir}
	have := func(n string) bool { return fileExists(filepath.Join(dir, n)) }
	if err := need(dir, have); err != nil {
		return nil, err
	}
	for _, n := range modelFiles {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p) // follows links: a Hugging Face snapshot links to its blobs
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		if !st.Mode().IsRegular() {
			return nil, badImport("%s is not a regular file: copy the model's files into a plain folder and import that", p)
		}
		s.fs = append(s.fs, importFile{name: n, size: st.Size(), open: func() (io.ReadCloser, error) { return os.Open(p) }})
	}
	return s, nil
}

func (s *folderSource) files() []importFile { return s.fs }
func (s *folderSource) where() string       { return s.dir }
func (s *folderSource) Close() error        { return nil }

type zipSource struct {
	path string
	root string // the folder in the zip holding model.bin: "" or "name/"
	zr   *zip.ReadCloser
	fs   []importFile
}

// openZip checks a zip's listing: every name must stay inside the archive
// (no "..", no absolute or drive paths, no links), and the model files must
// sit at its top or in one folder at its top.
func openZip(p string) (*zipSource, error) {
	zr, err := zip.OpenReader(p)
	if errors.Is(err, zip.ErrInsecurePath) && zr != nil {
		err = nil // GODEBUG=zipinsecurepath=0: the names are checked below, with a better message
	}
	if err != nil {
		return nil, badImport("%s is not a readable .zip (%v): give a model folder, or a .zip of one made with a zip tool", p, err)
	}
	s := &zipSource{path: p, zr: zr}
	ok := false
	defer func() {
		if !ok {
			zr.Close()
		}
	}()
	byDir := map[string]map[string]*zip.File{}
	for _, f := range zr.File {
		name := strings.ReplaceAll(f.Name, `\`, "/") // some Windows tools write backslashes
		if !zipLocal(name) {
			return nil, badImport("%s holds the entry %q, which points outside the archive: this zip is unsafe to unpack and nothing was imported; make a new zip of the model folder", p, f.Name)
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			return nil, badImport("%s holds %q, a symbolic link: zip the model's files themselves (zip without --symlinks)", p, f.Name)
		}
		if f.FileInfo().IsDir() {
			continue
		}
		d, base := path.Split(strings.TrimPrefix(name, "./"))
		if byDir[d] == nil {
			byDir[d] = map[string]*zip.File{}
		}
		if _, dup := byDir[d][base]; dup {
			return nil, badImport("%s holds %q twice: the archive is damaged or crafted; make a new zip of the model folder", p, f.Name)
		}
		byDir[d][base] = f
	}
	var root string
	var found []string
	for d, files := range byDir {
		if _, ok := files["model.bin"]; ok {
			found = append(found, d)
		}
	}
	sort.Strings(found)
	switch {
	case len(found) > 1:
		return nil, badImport("%s holds more than one model.bin (in %s): zip one model folder at a time", p, strings.Join(quoteDirs(found), ", "))
	case len(found) == 1:
		root = found[0]
	}
	files := byDir[root]
	s.root = root
	if err := need(s.where(), func(n string) bool { _, ok := files[n]; return ok }); err != nil {
		return nil, err
	}
	for _, n := range modelFiles {
		f, ok := files[n]
		if !ok {
			continue
		}
		size := int64(f.UncompressedSize64)
		if size < 0 || (f.CompressedSize64 > 0 && f.UncompressedSize64/f.CompressedSize64 > maxZipRatio) ||
			(f.CompressedSize64 == 0 && f.UncompressedSize64 > 0) {
			return nil, badImport("%s: the entry %q says it unpacks from %d to %d bytes, which no model file does: the archive is damaged or crafted; nothing was imported, make a new zip of the model folder", p, f.Name, f.CompressedSize64, f.UncompressedSize64)
		}
		if err := ct2bin.CheckFileSize(n, size); err != nil {
			return nil, badImport("%s: the entry %q unpacks to %d bytes, more than the %d any Whisper model's %s is: the archive is damaged or crafted; nothing was imported, make a new zip of the model folder", p, f.Name, size, ct2bin.MaxFileSize(n), n)
		}
		s.fs = append(s.fs, importFile{name: n, size: size, open: f.Open, zipped: true})
	}
	ok = true
	return s, nil
}

func quoteDirs(ds []string) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		if d == "" {
			d = "the top"
		}
		out[i] = strings.TrimSuffix(d, "/")
	}
	return out
}

// zipLocal reports whether a slash-separated entry name stays inside the
// folder it is unpacked in.
func zipLocal(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, ":") || strings.ContainsRune(name, 0) {
		return false
	}
	return !slices.Contains(strings.Split(name, "/"), "..")
}

func (s *zipSource) files() []importFile { return s.fs }
func (s *zipSource) where() string       { return filepath.Join(s.path, filepath.FromSlash(s.root)) }
func (s *zipSource) Close() error        { return s.zr.Close() }

// copyFile copies f to dst, exactly its stated size, and returns its SHA-256.
func copyFile(ctx context.Context, f importFile, dst string, m *meter) (string, error) {
	r, err := f.open()
	if err != nil {
		return "", fmt.Errorf("open %s: %w", f.name, err)
	}
	defer r.Close()
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", diskErr("create "+dst, err)
	}
	defer w.Close()
	h := sha256.New()
	n, err := copyCounted(ctx, w, h, io.LimitReader(r, f.size+1), m)
	switch {
	case err != nil && f.zipped && (errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF)):
		return "", badImport("the zip's %s does not unpack to what its header says (%v): the archive is damaged or crafted; make a new zip of the model folder", f.name, err)
	case err != nil:
		return "", err
	case n != f.size:
		return "", badImport("%s changed size while it was copied (%d bytes, expected %d): copy again once nothing writes to it", f.name, n, f.size)
	}
	if err := w.Sync(); err != nil {
		return "", diskErr("sync "+dst, err)
	}
	if err := w.Close(); err != nil {
		return "", diskErr("close "+dst, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyCounted copies r to w and h, reporting progress and stopping when ctx ends.
func copyCounted(ctx context.Context, w io.Writer, h hash.Hash, r io.Reader, m *meter) (int64, error) {
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, rerr := r.Read(buf)
		if k > 0 {
			if _, err := w.Write(buf[:k]); err != nil {
				return n, diskErr("write", err)
			}
			h.Write(buf[:k])
			n += int64(k)
			m.add(int64(k))
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}
