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
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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
	cfg, err := checkConfig(cpath)
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
	if err := checkLangIDs(cpath, cfg.LangIDs, vocab, info.Multilingual); err != nil {
		return nil, err
	}
	if err := cfg.check(cpath, info); err != nil {
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
		if _, err := fmt.Sscanf(strings.ReplaceAll(name, "/", " "), "%s layer_%d", &side, &i); err == nil && i >= 0 {
			if side == "encoder" {
				info.EncoderLayers = max(info.EncoderLayers, i+1)
			} else if side == "decoder" {
				info.DecoderLayers = max(info.DecoderLayers, i+1)
			}
		}
	}
	if info.NMels != 80 && info.NMels != 128 {
		return nil, invalid(nil, "%s: encoder/conv1/weight takes %d mel bins, but Whisper models take 80 (tiny to large-v2) or 128 (large-v3, turbo): the file is damaged or not a Whisper model — re-download or reconvert it", path, info.NMels)
	}
	if err := checkShapes(path, vars, aliases, info); err != nil {
		return nil, err
	}
	return info, nil
}

// config is the part of config.json CTranslate2 acts on.
type config struct {
	AlignmentHeads   [][]int         `json:"alignment_heads"`
	LangIDs          json.RawMessage `json:"lang_ids"`
	SuppressIDs      []int           `json:"suppress_ids"`
	SuppressIDsBegin []int           `json:"suppress_ids_begin"`
}

// checkShapes holds every tensor CTranslate2's Whisper model uses to the
// shape d_model, the mel bins, the vocabulary and the layers call for: the
// library multiplies them unchecked, so a wrong one crashes the worker (a
// projection of the wrong shape aborts every decode) or silently computes
// noise (a transposed square-free weight). Biases, layer-norm betas and the
// projection bias are optional to CTranslate2 and checked when present.
func checkShapes(path string, vars map[string]varInfo, aliases map[string]string, info *Info) error {
	get := func(name string) (varInfo, bool) {
		if t, ok := aliases[name]; ok {
			name = t
		}
		v, ok := vars[name]
		return v, ok
	}
	if info.EncoderLayers < 1 || info.DecoderLayers < 1 || info.EncoderLayers+info.DecoderLayers > len(vars) {
		return invalid(nil, "%s has %d encoder and %d decoder layers; a Whisper model has at least one of each — re-download or reconvert it", path, info.EncoderLayers, info.DecoderLayers)
	}
	ffn, ok := get("encoder/layer_0/ffn/linear_0/weight")
	if !ok || len(ffn.shape) != 2 || ffn.shape[0] < 1 {
		return invalid(nil, "%s lacks a 2-D encoder/layer_0/ffn/linear_0/weight, so it is not a complete Whisper model — re-download or reconvert it", path)
	}
	d, f, v := info.DModel, ffn.shape[0], info.VocabSize
	type want struct {
		name     string
		shape    []int
		optional bool
	}
	var ws []want
	add := func(name string, optional bool, shape ...int) { ws = append(ws, want{name, shape, optional}) }
	norm := func(p string) { add(p+"/gamma", false, d); add(p+"/beta", true, d) }
	linear := func(p string, out, in int) { add(p+"/weight", false, out, in); add(p+"/bias", true, out) }
	layer := func(p string, cross bool) {
		norm(p + "self_attention/layer_norm")
		linear(p+"self_attention/linear_0", 3*d, d)
		linear(p+"self_attention/linear_1", d, d)
		if cross {
			norm(p + "attention/layer_norm")
			linear(p+"attention/linear_0", d, d)
			linear(p+"attention/linear_1", 2*d, d)
			linear(p+"attention/linear_2", d, d)
		}
		norm(p + "ffn/layer_norm")
		linear(p+"ffn/linear_0", f, d)
		linear(p+"ffn/linear_1", d, f)
	}
	add("encoder/conv1/weight", false, d, info.NMels, 3)
	add("encoder/conv1/bias", true, d)
	add("encoder/conv2/weight", false, d, d, 3)
	add("encoder/conv2/bias", true, d)
	norm("encoder/layer_norm")
	for i := range info.EncoderLayers {
		layer(fmt.Sprintf("encoder/layer_%d/", i), false)
	}
	add("decoder/embeddings/weight", false, v, d)
	add("decoder/projection/weight", false, v, d)
	add("decoder/projection/bias", true, v)
	norm("decoder/layer_norm")
	for i := range info.DecoderLayers {
		layer(fmt.Sprintf("decoder/layer_%d/", i), true)
	}
	for _, w := range ws {
		got, ok := get(w.name)
		switch {
		case !ok && w.optional:
		case !ok:
			return invalid(nil, "%s lacks variable %q, so it is not a complete Whisper model — re-download or reconvert it", path, w.name)
		case !slices.Equal(got.shape, w.shape):
			return invalid(nil, "%s: variable %q has shape %v, but d_model %d, %d mel bins, a feed-forward width of %d and %d tokens call for %v: the file is damaged or forged — re-download or reconvert the model",
				path, w.name, got.shape, d, info.NMels, f, v, w.shape)
		}
		if s, ok := get(w.name + "_scale"); ok && len(s.shape) != 0 && !slices.Equal(s.shape, w.shape[:1]) {
			return invalid(nil, "%s: variable %q has shape %v, but its weight has %d rows — re-download or reconvert the model", path, w.name+"_scale", s.shape, w.shape[0])
		} else if !ok && (got.dtype == Int8 || got.dtype == Int16) {
			return invalid(nil, "%s: the %s weight %q has no %q to scale it — re-download or reconvert the model", path, got.dtype, w.name, w.name+"_scale")
		}
	}
	// The encoder sees 30 s as 1500 positions and the decoder writes up to
	// 448 tokens: fewer position encodings fail decoding partway.
	for _, p := range []struct {
		name string
		rows int
	}{{"encoder/position_encodings/encodings", 1500}, {"decoder/position_encodings/encodings", 448}} {
		if got, _ := get(p.name); got.shape[0] < p.rows || got.shape[1] != d {
			return invalid(nil, "%s: variable %q has shape %v, but a Whisper model needs [at least %d, d_model %d] — re-download or reconvert the model", path, p.name, got.shape, p.rows, d)
		}
	}
	// The decoder's own alignment defaults index its layers and heads unchecked too.
	nd, h := int64(info.DecoderLayers), int64(info.Heads)
	if l, ok := get("decoder/alignment_layer"); ok && (len(l.shape) != 0 || l.scalar < -nd || l.scalar >= nd) {
		return invalid(nil, "%s: decoder/alignment_layer is %d, outside the decoder's %d layers — re-download or reconvert the model", path, l.scalar, nd)
	}
	if a, ok := get("decoder/alignment_heads"); ok && (len(a.shape) != 0 || a.scalar < 0 || a.scalar > h) {
		return invalid(nil, "%s: decoder/alignment_heads is %d, but the decoder has %d heads — re-download or reconvert the model", path, a.scalar, h)
	}
	return nil
}

// checkConfig checks config.json is what CTranslate2's JSON reader takes
// and has the keys it needs, and returns them.
func checkConfig(path string) (*config, error) {
	// CTranslate2 reads these without checking; a missing one fails only at transcription time.
	keys := []string{"alignment_heads", "lang_ids", "suppress_ids", "suppress_ids_begin"}
	b, err := ReadModelFile(path)
	if isNotExist(err) {
		return nil, invalid(err, "model directory %s has no config.json — re-download the model (CTranslate2 reads %s from it)", filepath.Dir(path), strings.Join(keys, ", "))
	} else if errors.Is(err, ErrInvalidModel) {
		return nil, err
	} else if err != nil {
		return nil, invalid(err, "cannot read config.json: %v", err)
	}
	if err := strictText(b); err != nil {
		// encoding/json would take these; CTranslate2's reader fails the load on them.
		return nil, invalid(err, "%s %v, which CTranslate2 cannot read — re-download the model", path, err)
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
	var c config
	for _, k := range []struct {
		key string
		dst any
	}{{"alignment_heads", &c.AlignmentHeads}, {"suppress_ids", &c.SuppressIDs}, {"suppress_ids_begin", &c.SuppressIDsBegin}} {
		if err := json.Unmarshal(m[k.key], k.dst); err != nil {
			return nil, invalid(err, "%s: %s is not a list of token ids or [layer, head] pairs as CTranslate2 needs (%.40s) — re-download the model", path, k.key, m[k.key])
		}
	}
	c.LangIDs = m["lang_ids"]
	return &c, nil
}

// check holds the config's ids to the model's shape: CTranslate2 indexes
// with them unchecked, so one out of range crashes the worker (alignment
// heads past the decoder's layers segfault every word-timestamp request).
func (c *config) check(path string, info *Info) error {
	seen := map[[2]int]bool{}
	for _, lh := range c.AlignmentHeads {
		if len(lh) != 2 {
			return invalid(nil, "%s: alignment_heads holds %v, not a [layer, head] pair — re-download the model", path, lh)
		}
		if lh[0] < 0 || lh[0] >= info.DecoderLayers || lh[1] < 0 || lh[1] >= info.Heads {
			return invalid(nil, "%s: alignment_heads holds [%d, %d], but the model's decoder has layers 0-%d and heads 0-%d: the config is damaged or not this model's — re-download the model",
				path, lh[0], lh[1], info.DecoderLayers-1, info.Heads-1)
		}
		if seen[[2]int(lh)] {
			return invalid(nil, "%s: alignment_heads holds [%d, %d] twice — re-download the model", path, lh[0], lh[1])
		}
		seen[[2]int(lh)] = true
	}
	for _, l := range []struct {
		key string
		ids []int
	}{{"suppress_ids", c.SuppressIDs}, {"suppress_ids_begin", c.SuppressIDsBegin}} {
		for _, id := range l.ids {
			if id < 0 || id >= info.VocabSize {
				return invalid(nil, "%s: %s holds %d, outside the vocabulary of %d tokens — re-download the model", path, l.key, id, info.VocabSize)
			}
		}
	}
	return nil
}

// strictText reports what in JSON text b CTranslate2's reader (nlohmann
// JSON) refuses and encoding/json silently replaces: bytes that are not
// UTF-8, and \u escapes of lone UTF-16 surrogates.
func strictText(b []byte) error {
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return fmt.Errorf("holds bytes that are not UTF-8 (at byte %d)", i)
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] != 'u' {
			i++ // an escaped character, maybe a backslash
			continue
		}
		r, ok := hex4(b[i+2:])
		if !ok || !utf16.IsSurrogate(r) {
			continue
		}
		lo, ok := rune(0), false
		if len(b) >= i+12 && b[i+6] == '\\' && b[i+7] == 'u' {
			lo, ok = hex4(b[i+8:])
		}
		if r >= 0xDC00 || !ok || lo < 0xDC00 || lo > 0xDFFF {
			return fmt.Errorf("holds \\u%04X, half of a UTF-16 pair, alone (at byte %d)", r, i)
		}
		i += 11
	}
	return nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(n), err == nil
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
	b, err := ReadModelFile(path)
	if err == nil {
		if err := strictText(b); err != nil {
			return nil, path, invalid(err, "%s %v, which CTranslate2 cannot read — re-download the model", path, err)
		}
		var v []string
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, path, invalid(err, "%s is not a JSON array of strings (%v) — re-download the model", path, err)
		}
		return v, path, nil
	} else if errors.Is(err, ErrInvalidModel) {
		return nil, path, err
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, path, invalid(err, "cannot read vocabulary: %v", err)
	}
	path = filepath.Join(dir, "vocabulary.txt")
	b, err = ReadModelFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, invalid(err, "model directory %s has no vocabulary.json (or vocabulary.txt) — re-download the model", dir)
	} else if errors.Is(err, ErrInvalidModel) {
		return nil, path, err
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
