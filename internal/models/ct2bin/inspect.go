package ct2bin

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrInvalidModel is wrapped by every error Inspect returns for a directory that is not a
// usable CTranslate2 Whisper model.
var ErrInvalidModel = errors.New("invalid CTranslate2 Whisper model")

// invalidError is a one-line user-facing message that is ErrInvalidModel and keeps its cause.
type invalidError struct {
	msg   string
	cause error
}

func (e *invalidError) Error() string { return e.msg }

func (e *invalidError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInvalidModel}
	}
	return []error{ErrInvalidModel, e.cause}
}

func invalid(cause error, format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...), cause: cause}
}

// Info describes a validated model directory.
type Info struct {
	BinaryVersion int
	Spec          string
	Revision      int
	NMels         int
	DModel        int
	EncoderLayers int
	DecoderLayers int
	Heads         int
	VocabSize     int
	Multilingual  bool   // the vocabulary holds the "" token, as CTranslate2 decides it
	DType         string // of decoder/embeddings/weight: float16, int8, float32 …
	Variables     int
	Bytes         int64 // size of model.bin
}

// Inspect checks a CTranslate2 Whisper model directory without loading its weights: it walks
// every model.bin header (seeking past the data), then config.json and the vocabulary.
func Inspect(modelDir string) (*Info, error) {
	st, err := os.Stat(modelDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, invalid(err, "model directory %s does not exist; download it with `whisperkey models pull NAME` or point --model at a CTranslate2 Whisper folder", modelDir)
	case err != nil:
		return nil, invalid(err, "cannot read model directory: %v", err)
	case !st.IsDir():
		return nil, invalid(nil, "model path %s is a file, not a directory; point --model at a CTranslate2 Whisper folder (model.bin, config.json, vocabulary.json)", modelDir)
	}
	info, err := readModelBin(modelDir)
	if err != nil {
		return nil, err
	}
	cpath := filepath.Join(modelDir, "config.json")
	langIDs, err := checkConfig(cpath)
	if err != nil {
		return nil, err
	}
	vocab, vpath, err := readVocabulary(modelDir)
	if err != nil {
		return nil, err
	}
	if len(vocab) != info.VocabSize {
		return nil, invalid(nil, "%s has %d tokens but model.bin's decoder/embeddings/weight has %d rows; the files belong to different models — re-download the model", vpath, len(vocab), info.VocabSize)
	}
	for _, tok := range []string{"<|endoftext|>", "<|startoftranscript|>", "<|notimestamps|>"} {
		if !slices.Contains(vocab, tok) {
			return nil, invalid(nil, "%s lacks the special token %q — re-download the model", vpath, tok)
		}
	}
	if !slices.Contains(vocab, "<|nospeech|>") && !slices.Contains(vocab, "<|nocaptions|>") {
		return nil, invalid(nil, "%s has neither <|nospeech|> nor <|nocaptions|> — re-download the model", vpath)
	}
	info.Multilingual = slices.Contains(vocab, "")
	if err := checkLangIDs(cpath, langIDs, vocab, info.Multilingual); err != nil {
		return nil, err
	}
	return info, nil
}

type varInfo struct {
	shape  []int
	dtype  DType
	scalar int64 // value of a rank-0 integer or float variable
}

// hdr reads model.bin fields at explicit offsets; the first failure sticks in err.
type hdr struct {
	f         *os.File
	path      string
	off, size int64
	err       error
}

func (h *hdr) fail(err error) {
	if h.err == nil {
		h.err = err
	}
}

func (h *hdr) truncated(need int64) error {
	return invalid(nil, "%s is truncated (%d of %d bytes) — re-download the model", h.path, h.size, need)
}

func (h *hdr) skip(n int64) {
	if h.err == nil && h.off+n > h.size {
		h.fail(h.truncated(h.off + n))
	}
	h.off += n
}

func (h *hdr) read(n int) []byte {
	b := make([]byte, n)
	if h.err == nil && h.off+int64(n) > h.size {
		h.fail(h.truncated(h.off + int64(n)))
	}
	if h.err == nil {
		if _, err := h.f.ReadAt(b, h.off); err != nil {
			h.fail(invalid(err, "cannot read %s: %v — check the file", h.path, err))
		}
	}
	h.off += int64(n)
	return b
}

func (h *hdr) u8() uint8   { return h.read(1)[0] }
func (h *hdr) u32() uint32 { return binary.LittleEndian.Uint32(h.read(4)) }

// str reads a u16 length (counting a trailing NUL), the bytes and the NUL.
func (h *hdr) str() string {
	at := h.off
	n := binary.LittleEndian.Uint16(h.read(2))
	if h.err != nil {
		return ""
	}
	b := h.read(int(n))
	if h.err == nil && (n == 0 || b[n-1] != 0) {
		h.fail(invalid(nil, "%s has a malformed name at offset %d; the file is corrupt — re-download the model", h.path, at))
	}
	s, _, _ := strings.Cut(string(b), "\x00") // the C++ reader stops at the first NUL too
	return s
}

func scalarValue(b []byte, d DType) int64 {
	le := binary.LittleEndian
	switch {
	case d == Int8:
		return int64(int8(b[0]))
	case d == Int16:
		return int64(int16(le.Uint16(b)))
	case d == Int32:
		return int64(int32(le.Uint32(b)))
	case d == Float32:
		return int64(math.Float32frombits(le.Uint32(b)))
	}
	return 0
}

func isText(b []byte) bool {
	for _, c := range b {
		if (c < ' ' || c > '~') && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

func readModelBin(dir string) (*Info, error) {
	path := filepath.Join(dir, "model.bin")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, invalid(err, "model directory %s has no model.bin, so it is not a CTranslate2 model; download one with `whisperkey models pull NAME`", dir)
	} else if err != nil {
		return nil, invalid(err, "cannot read model.bin: %v — check the file's permissions", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, invalid(err, "cannot read model.bin: %v", err)
	}
	if !st.Mode().IsRegular() {
		return nil, invalid(nil, "%s is not a regular file — re-download the model", path)
	}
	h := &hdr{f: f, path: path, size: st.Size()}
	if h.size < 4 {
		return nil, invalid(nil, "%s is too short (%d bytes) to be a CTranslate2 model — re-download the model", path, h.size)
	}
	head := h.read(min(24, int(h.size)))
	h.off = 0
	switch ver := h.u32(); {
	case h.err != nil:
		return nil, h.err
	case ver > BinaryVersion && isText(head):
		return nil, invalid(nil, "%s is not a CTranslate2 model file (it starts with %q) — re-download the model", path, head)
	case ver > BinaryVersion:
		return nil, invalid(nil, "%s has binary version %d, newer than %d which this build reads — update whisperkey or convert the model with CTranslate2 4.x", path, ver, BinaryVersion)
	case ver < 4:
		return nil, invalid(nil, "%s has binary version %d, older than 4 — reconvert the model with a current CTranslate2 converter", path, ver)
	}
	info := &Info{BinaryVersion: int(binary.LittleEndian.Uint32(head)), Bytes: h.size}
	info.Spec = h.str()
	info.Revision = int(h.u32())
	if h.err != nil {
		return nil, h.err
	}
	if info.Spec != SpecName {
		return nil, invalid(nil, "%s holds a %q model, not a Whisper model (%s) — point --model at a Whisper model", path, info.Spec, SpecName)
	}
	if info.Revision > SpecRevision {
		return nil, invalid(nil, "%s has %s revision %d, newer than %d which this build reads — update whisperkey", path, SpecName, info.Revision, SpecRevision)
	}

	vars := map[string]varInfo{}
	for n := h.u32(); h.err == nil && uint32(len(vars)) < n; {
		name := h.str()
		v := varInfo{shape: make([]int, h.u8())}
		for i := range v.shape {
			v.shape[i] = int(h.u32())
		}
		v.dtype = DType(h.u8())
		nb := int64(h.u32())
		switch want := numBytes(v.shape, v.dtype); {
		case h.err != nil:
		case !v.dtype.valid():
			h.fail(invalid(nil, "%s: variable %q has unknown dtype id %d; the file is corrupt or from a newer CTranslate2 — re-download the model", path, name, v.dtype))
		case want != nb:
			h.fail(invalid(nil, "%s: variable %q of shape %v %s needs %d bytes but declares %d; the file is corrupt — re-download the model", path, name, v.shape, v.dtype, want, nb))
		case vars[name].shape != nil:
			h.fail(invalid(nil, "%s holds variable %q twice; the file is corrupt — re-download the model", path, name))
		case len(v.shape) == 0:
			v.scalar = scalarValue(h.read(int(nb)), v.dtype)
		default:
			h.skip(nb)
		}
		vars[name] = v
	}
	aliases := map[string]string{}
	for n := h.u32(); h.err == nil && uint32(len(aliases)) < n; {
		a := h.str()
		aliases[a] = h.str()
	}
	if h.err != nil {
		return nil, h.err
	}
	if h.off != h.size {
		return nil, invalid(nil, "%s has %d unexpected bytes after the end of the model (offset %d) — re-download the model", path, h.size-h.off, h.off)
	}
	for _, a := range slices.Sorted(maps.Keys(aliases)) {
		if _, ok := vars[aliases[a]]; !ok {
			return nil, invalid(nil, "%s: alias %q points to missing variable %q — re-download or reconvert the model", path, a, aliases[a])
		}
	}

	// Missing scalars are not an error to CTranslate2: it silently uses defaults that change the network.
	required := []struct {
		name string
		rank int
	}{
		{"encoder/conv1/weight", 3}, {"encoder/conv2/weight", 3}, {"encoder/position_encodings/encodings", 2},
		{"decoder/embeddings/weight", 2}, {"decoder/projection/weight", 2}, {"decoder/position_encodings/encodings", 2},
		{"encoder/num_heads", 0}, {"decoder/num_heads", 0}, {"decoder/activation", 0}, {"decoder/scale_embeddings", 0},
	}
	for _, r := range required {
		v, ok := vars[r.name]
		if t, alias := aliases[r.name]; !ok && alias {
			v, ok = vars[t]
		}
		if !ok {
			return nil, invalid(nil, "%s lacks variable %q, so it is not a complete Whisper model — re-download or reconvert it", path, r.name)
		}
		if len(v.shape) != r.rank {
			return nil, invalid(nil, "%s: variable %q has shape %v, expected rank %d — re-download or reconvert the model", path, r.name, v.shape, r.rank)
		}
	}
	conv1, emb := vars["encoder/conv1/weight"], vars["decoder/embeddings/weight"]
	info.NMels, info.DModel = conv1.shape[1], conv1.shape[0]
	info.VocabSize, info.DType = emb.shape[0], emb.dtype.String()
	info.Heads = int(vars["decoder/num_heads"].scalar)
	// CTranslate2 divides by these while loading: a bad one crashes the worker.
	for _, name := range []string{"encoder/num_heads", "decoder/num_heads"} {
		if n := vars[name].scalar; n < 1 || info.DModel%int(n) != 0 {
			return nil, invalid(nil, "%s: %s is %d, but a Whisper model needs at least one attention head dividing d_model %d — the file is corrupt; re-download or reconvert the model", path, name, n, info.DModel)
		}
	}
	if info.NMels < 1 || info.DModel < 1 || info.VocabSize < 1 {
		return nil, invalid(nil, "%s: %d mel bins, d_model %d, %d tokens — the file is corrupt; re-download or reconvert the model", path, info.NMels, info.DModel, info.VocabSize)
	}
	info.Variables = len(vars)
	for name := range vars {
		var side string
		var i int
		if _, err := fmt.Sscanf(strings.ReplaceAll(name, "/", " "), "%s layer_%d", &side, &i); err == nil {
			if side == "encoder" {
				info.EncoderLayers = max(info.EncoderLayers, i+1)
			} else if side == "decoder" {
				info.DecoderLayers = max(info.DecoderLayers, i+1)
			}
		}
	}
	return info, nil
}

// checkConfig checks config.json has the keys CTranslate2 needs and returns its lang_ids.
func checkConfig(path string) (json.RawMessage, error) {
	// CTranslate2 reads these without checking; a missing one fails only at transcription time.
	keys := []string{"alignment_heads", "lang_ids", "suppress_ids", "suppress_ids_begin"}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, invalid(err, "model directory %s has no config.json — re-download the model (CTranslate2 reads %s from it)", filepath.Dir(path), strings.Join(keys, ", "))
	} else if err != nil {
		return nil, invalid(err, "cannot read config.json: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid(err, "%s is not a JSON object (%v) — re-download the model", path, err)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return nil, invalid(nil, "%s lacks %q, which CTranslate2 needs to transcribe — reconvert the model with a current ct2-transformers-converter", path, k)
		}
	}
	return m["lang_ids"], nil
}

// checkLangIDs checks that lang_ids lists language tokens of the vocabulary:
// CTranslate2 detects the language among exactly these ids, so an empty
// list fails every detection and a wrong id silently worsens the text.
func checkLangIDs(path string, raw json.RawMessage, vocab []string, multilingual bool) error {
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return invalid(err, "%s: lang_ids is not a list of token ids (%.40s) — re-download the model", path, raw)
	}
	if len(ids) == 0 && multilingual { // an English-only model never detects
		return invalid(nil, "%s: lang_ids is empty, so no language can be detected — re-download the model", path)
	}
	for _, id := range ids {
		if id < 0 || id >= len(vocab) {
			return invalid(nil, "%s: lang_ids holds %d, outside the vocabulary of %d tokens — re-download the model", path, id, len(vocab))
		}
		if tok := vocab[id]; !strings.HasPrefix(tok, "<|") || !strings.HasSuffix(tok, "|>") {
			return invalid(nil, "%s: lang_ids holds %d, which is the token %q, not a language — re-download the model", path, id, tok)
		}
	}
	return nil
}

// ReadVocabulary reads dir's vocabulary.json, else the older vocabulary.txt,
// as CTranslate2 does: the token strings in id order. The model check and
// the tokenizer (internal/whisper) both read it this way.
func ReadVocabulary(dir string) ([]string, error) {
	v, _, err := readVocabulary(dir)
	return v, err
}

// readVocabulary is ReadVocabulary, and the path of the file it read.
func readVocabulary(dir string) ([]string, string, error) {
	path := filepath.Join(dir, "vocabulary.json")
	b, err := os.ReadFile(path)
	if err == nil {
		var v []string
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, path, invalid(err, "%s is not a JSON array of strings (%v) — re-download the model", path, err)
		}
		return v, path, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, path, invalid(err, "cannot read vocabulary: %v", err)
	}
	path = filepath.Join(dir, "vocabulary.txt")
	b, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, invalid(err, "model directory %s has no vocabulary.json (or vocabulary.txt) — re-download the model", dir)
	} else if err != nil {
		return nil, path, invalid(err, "cannot read vocabulary: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	crlf := true
	for _, l := range lines {
		crlf = crlf && strings.HasSuffix(l, "\r")
	}
	for i := range lines {
		if crlf { // CTranslate2 strips CR only when every line has one
			lines[i] = strings.TrimSuffix(lines[i], "\r")
		}
	}
	return lines, path, nil
}
