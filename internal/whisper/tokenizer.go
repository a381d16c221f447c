package whisper

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNoTokenizerJSON is returned by Encode when the model directory has no
// tokenizer.json, which holds the BPE merges needed to encode text.
var ErrNoTokenizerJSON = errors.New("model directory lacks tokenizer.json")

// Special token strings, looked up in the vocabulary rather than hard-coded
// as ids because the three Whisper vocabulary families place them differently.
const (
	tokEOT          = "<|endoftext|>"
	tokSOT          = "<|startoftranscript|>"
	tokTranscribe   = "<|transcribe|>"
	tokTranslate    = "<|translate|>"
	tokSOTLM        = "<|startoflm|>"
	tokSOTPrev      = "<|startofprev|>"
	tokNoSpeech     = "<|nospeech|>"
	tokNoCaptions   = "<|nocaptions|>"
	tokNoTimestamps = "<|notimestamps|>"
)

// Tokenizer maps between text and Whisper token ids. It is immutable after
// LoadTokenizer and safe for concurrent use.
type Tokenizer struct {
	dir   string
	vocab []string  // id → token string (vocabulary.json / .txt)
	ids   *strIndex // token string → first id

	eot, sot, transcribe, translate, sotLM, sotPrev, noSpeech, noTimestamps int

	multilingual bool
	langs        []string       // language codes in id order
	langIDs      map[string]int // code → token id
	enc          *bpeEncoder    // nil without tokenizer.json
	suppress     []int
}

// LoadTokenizer reads modelDir's vocabulary.json (or vocabulary.txt) and, when
// present, tokenizer.json for encoding.
func LoadTokenizer(modelDir string) (*Tokenizer, error) {
	// The two files are independent until merges are resolved, so
	// tokenizer.json is parsed on a second goroutine (waited for below).
	type parsed struct {
		f   *bpeFile
		err error
	}
	bpeCh := make(chan parsed, 1)
	go func() {
		f, err := parseBPEFile(filepath.Join(modelDir, "tokenizer.json"))
		bpeCh <- parsed{f, err}
	}()
	vocab, err := readVocabulary(modelDir)
	bpe := <-bpeCh
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{dir: modelDir, vocab: vocab, ids: newStrIndex(vocab, len(vocab))}
	for i := range vocab {
		t.ids.add(i)
	}
	specials := []struct {
		dst  *int
		toks []string
	}{
		{&t.eot, []string{tokEOT}},
		{&t.sot, []string{tokSOT}},
		{&t.transcribe, []string{tokTranscribe}},
		{&t.translate, []string{tokTranslate}},
		{&t.sotLM, []string{tokSOTLM}},
		{&t.sotPrev, []string{tokSOTPrev}},
		{&t.noSpeech, []string{tokNoSpeech, tokNoCaptions}},
		{&t.noTimestamps, []string{tokNoTimestamps}},
	}
	for _, s := range specials {
		found := false
		for _, tok := range s.toks {
			if id, ok := t.ids.get(tok); ok {
				*s.dst, found = id, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("load tokenizer %s: vocabulary has no %s token: this is not a Whisper model directory (reconvert it with ct2-transformers-converter)", modelDir, strings.Join(s.toks, " or "))
		}
	}
	if t.sot >= t.translate || t.noTimestamps+1 > len(vocab) {
		return nil, fmt.Errorf("load tokenizer %s: special tokens are out of Whisper's order: reconvert the model", modelDir)
	}
	_, t.multilingual = t.ids.get("")
	t.langIDs = make(map[string]int)
	for id := t.sot + 1; id < t.translate; id++ {
		tok := vocab[id]
		if !strings.HasPrefix(tok, "<|") || !strings.HasSuffix(tok, "|>") {
			continue
		}
		code := tok[2 : len(tok)-2]
		if !t.multilingual && code != "en" {
			continue // English-only models are always prompted without a language
		}
		t.langs = append(t.langs, code)
		t.langIDs[code] = id
	}

	switch {
	case errors.Is(bpe.err, fs.ErrNotExist):
		// Decoding needs only the vocabulary; Encode reports the gap.
	case bpe.err != nil:
		return nil, fmt.Errorf("load tokenizer %s: %w", modelDir, bpe.err)
	default:
		if t.enc, err = bpe.f.encoder(vocab, t.ids); err != nil {
			return nil, fmt.Errorf("load tokenizer %s: %w", modelDir, err)
		}
	}
	t.suppress = t.buildSuppressTokens()
	return t, nil
}

func readVocabulary(dir string) ([]string, error) {
	path := filepath.Join(dir, "vocabulary.json")
	data, err := os.ReadFile(path)
	if err == nil {
		// All tokens share one backing string: one allocation, not 50k.
		var buf []byte
		var ends []int
		s := &jsonScanner{data: data}
		err := s.array(func() error {
			b, err := s.str()
			buf = append(buf, b...)
			ends = append(ends, len(buf))
			return err
		})
		if err == nil {
			err = s.end()
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w: the file must be a JSON array of token strings", path, err)
		}
		all := string(buf)
		vocab := make([]string, len(ends))
		start := 0
		for i, end := range ends {
			vocab[i] = all[start:end]
			start = end
		}
		return vocab, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	path = filepath.Join(dir, "vocabulary.txt")
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load tokenizer %s: no vocabulary.json or vocabulary.txt: point the model setting at a CTranslate2 Whisper model directory", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	lines := strings.Split(string(data), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	// Like CTranslate2, strip CR only when every line has one.
	allCR := len(lines) > 0
	for _, l := range lines {
		if !strings.HasSuffix(l, "\r") {
			allCR = false
			break
		}
	}
	if allCR {
		for i, l := range lines {
			lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return lines, nil
}

// EOT is the <|endoftext|> id; every id at or above it is special.
func (t *Tokenizer) EOT() int { return t.eot }

// SOT is the <|startoftranscript|> id.
func (t *Tokenizer) SOT() int { return t.sot }

// Transcribe is the <|transcribe|> task id.
func (t *Tokenizer) Transcribe() int { return t.transcribe }

// Translate is the <|translate|> task id.
func (t *Tokenizer) Translate() int { return t.translate }

// SOTLM is the <|startoflm|> id.
func (t *Tokenizer) SOTLM() int { return t.sotLM }

// SOTPrev is the <|startofprev|> id that introduces previous-text context.
func (t *Tokenizer) SOTPrev() int { return t.sotPrev }

// NoSpeech is the <|nospeech|> (or older <|nocaptions|>) id.
func (t *Tokenizer) NoSpeech() int { return t.noSpeech }

// NoTimestamps is the <|notimestamps|> id.
func (t *Tokenizer) NoTimestamps() int { return t.noTimestamps }

// TimestampBegin is the <|0.00|> id, the first timestamp token.
func (t *Tokenizer) TimestampBegin() int { return t.noTimestamps + 1 }

// VocabSize is the number of tokens in the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// IsTimestamp reports whether id is a timestamp token.
func (t *Tokenizer) IsTimestamp(id int) bool {
	return id >= t.TimestampBegin() && id < len(t.vocab)
}

// Multilingual reports whether the model is multilingual (its vocabulary
// contains the empty-string token, CTranslate2's rule).
func (t *Tokenizer) Multilingual() bool { return t.multilingual }

// Languages lists the model's language codes in token-id order; English-only
// models have just "en".
func (t *Tokenizer) Languages() []string { return slices.Clone(t.langs) }

// LanguageID returns the token id of language code (for example "en"), if
// the model supports it.
func (t *Tokenizer) LanguageID(code string) (int, bool) {
	id, ok := t.langIDs[code]
	return id, ok
}

// SOTSequence is the start of every prompt: [SOT, language, task] for
// multilingual models, [SOT] for English-only ones. A language the model does
// not know (check with LanguageID) is left out; task "translate" selects
// translation and anything else transcription.
func (t *Tokenizer) SOTSequence(language, task string) []int {
	seq := []int{t.sot}
	if !t.multilingual {
		return seq
	}
	if id, ok := t.langIDs[language]; ok {
		seq = append(seq, id)
	}
	if task == "translate" {
		return append(seq, t.translate)
	}
	return append(seq, t.transcribe)
}

// SuppressTokens is faster-whisper's expansion of suppress_tokens=[-1]:
// the non-speech symbol tokens, the leading " -" and " '" tokens and the
// task/start/no-speech specials, sorted and unique.
func (t *Tokenizer) SuppressTokens() []int { return slices.Clone(t.suppress) }

func (t *Tokenizer) buildSuppressTokens() []int {
	symbols := strings.Split(`" # ( ) * + / : ; < = > @ [ \ ] ^ _ `+"`"+` { | } ~ 「 」 『 』`, " ")
	symbols = append(symbols, strings.Fields(`<< >> <<< >>> -- --- -( -[ (' (" (( )) ((( ))) [[ ]] {{ }} ♪♪ ♪♪♪`)...)
	// May be one or several tokens; their first token is suppressed either way.
	misc := strings.Split("♩ ♪ ♫ ♬ ♭ ♮ ♯", " ")

	set := map[int]bool{
		t.transcribe: true, t.translate: true, t.sot: true,
		t.sotPrev: true, t.sotLM: true, t.noSpeech: true,
	}
	for _, s := range []string{" -", " '"} {
		if ids := t.encodeForSuppress(s); len(ids) > 0 {
			set[ids[0]] = true
		}
	}
	for i, sym := range append(symbols, misc...) {
		isMisc := i >= len(symbols)
		for _, s := range []string{sym, " " + sym} {
			if ids := t.encodeForSuppress(s); len(ids) == 1 || (isMisc && len(ids) > 0) {
				set[ids[0]] = true
			}
		}
	}
	out := make([]int, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Ints(out)
	return out
}

// encodeForSuppress encodes with the BPE when tokenizer.json is there.
// Without it, a symbol counts as one token when its byte-level string is a
// vocabulary entry, and its first token is the longest vocabulary prefix:
// this agrees with the BPE for Whisper's vocabularies, whose merges build
// every entry.
func (t *Tokenizer) encodeForSuppress(s string) []int {
	if t.enc != nil {
		return t.enc.encode(s)
	}
	bl := toByteLevel(s)
	if id, ok := t.ids.get(bl); ok {
		return []int{id}
	}
	for end := len(bl) - 1; end > 0; end-- {
		if !utf8.RuneStart(bl[end]) {
			continue
		}
		if id, ok := t.ids.get(bl[:end]); ok {
			return []int{id, -1} // more than one token; only the first is known
		}
	}
	return nil
}

// Encode turns text into token ids like Hugging Face tokenizers' byte-level
// BPE with Whisper's pre-tokenizer (add_special_tokens=False). Special token
// strings such as "<|en|>" in text become their ids, as in tokenizers.
func (t *Tokenizer) Encode(text string) ([]int, error) {
	if t.enc == nil {
		return nil, fmt.Errorf("encode text: %w (%s): copy it from the original Hugging Face model next to model.bin", ErrNoTokenizerJSON, t.dir)
	}
	return t.enc.encode(text), nil
}

// Decode turns ids into text: ids at or above EOT (specials, timestamps) are
// dropped, byte-level tokens become bytes and invalid UTF-8 becomes U+FFFD.
func (t *Tokenizer) Decode(ids []int) string {
	var buf []byte
	for _, id := range ids {
		if id < 0 || id >= t.eot || id >= len(t.vocab) {
			continue
		}
		buf = appendByteLevel(buf, t.vocab[id])
	}
	return lossyUTF8(buf)
}

// byteToRune is GPT-2's bytes_to_unicode table: printable bytes map to
// themselves and the other 68 bytes to U+0100 onwards, in byte order.
var byteToRune = func() (m [256]rune) {
	next := rune(256)
	for b := range 256 {
		if (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255) {
			m[b] = rune(b)
		} else {
			m[b] = next
			next++
		}
	}
	return m
}()

// runeToByte inverts byteToRune; -1 marks runes outside the table.
var runeToByte = func() (m [324]int16) {
	for i := range m {
		m[i] = -1
	}
	for b, r := range byteToRune {
		m[r] = int16(b)
	}
	return m
}()

func toByteLevel(s string) string {
	var sb strings.Builder
	sb.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		sb.WriteRune(byteToRune[s[i]])
	}
	return sb.String()
}

// appendByteLevel appends the bytes a byte-level token stands for. Like the
// tokenizers ByteLevel decoder, a token with a character outside the table
// contributes its own UTF-8 bytes.
func appendByteLevel(dst []byte, tok string) []byte {
	start := len(dst)
	for _, r := range tok {
		if r < 0 || int(r) >= len(runeToByte) || runeToByte[r] < 0 {
			return append(dst[:start], tok...)
		}
		dst = append(dst, byte(runeToByte[r]))
	}
	return dst
}

// lossyUTF8 replaces each maximal invalid subsequence with one U+FFFD, the
// rule of Rust's String::from_utf8_lossy and Python's errors="replace".
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[i : i+size])
			i += size
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += invalidPrefixLen(b[i:])
	}
	return sb.String()
}

// invalidPrefixLen is the length of the maximal prefix of b that could start
// a valid UTF-8 sequence (at least 1), given that b does not start with one.
func invalidPrefixLen(b []byte) int {
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 2
	case c == 0xE0:
		need, lo = 3, 0xA0
	case c == 0xED:
		need, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 3
	case c == 0xF0:
		need, lo = 4, 0x90
	case c == 0xF4:
		need, hi = 4, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 4
	default:
		return 1
	}
	if len(b) < 2 || b[1] < lo || b[1] > hi {
		return 1
	}
	n := 2
	for n < need && n < len(b) && b[n] >= 0x80 && b[n] <= 0xBF {
		n++
	}
	return n
}

// bpeEncoder is tokenizer.json's byte-level BPE model plus its added tokens.
// A merge is stored under the id of the token it makes (rank and where the
// string splits) instead of in a pair map: Whisper's merge r makes token
// 256+r, so loading needs no hashing at all.
type bpeEncoder struct {
	vocab      *strIndex
	byteID     [256]int
	mergeRank  []int32             // by result id: rank, or -1 when no merge makes it
	mergeSplit []int32             // by result id: byte length of the merge's left part
	extra      map[uint64]bpeMerge // later merges making an already-made token
	added      map[string]int
	addedLens  []int // distinct added-token lengths, longest first
	addedLead  [256]bool
}

type bpeMerge struct{ rank, id int32 }

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bpeFile is tokenizer.json as parsed, before its strings are resolved to
// ids. Byte slices alias the file data unless they held escapes.
type bpeFile struct {
	path   string
	toks   [][]byte // model.vocab keys
	ids    []int    // model.vocab values
	merges [][2][]byte
	added  map[string]int
}

// parseBPEFile reads the parts of a tokenizers JSON file that encoding needs.
// It uses a small dedicated scanner because this 4 MB file is read at every
// start and encoding/json is several times slower on it.
func parseBPEFile(path string) (*bpeFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &bpeFile{path: path, added: map[string]int{}}
	s := &jsonScanner{data: data}
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "model":
			return s.object(func(key []byte) error {
				switch string(key) {
				case "type":
					typ, err := s.str()
					if err == nil && string(typ) != "BPE" {
						err = fmt.Errorf("model type %q is not BPE", typ)
					}
					return err
				case "vocab":
					f.toks = make([][]byte, 0, 1<<16)
					f.ids = make([]int, 0, 1<<16)
					return s.object(func(tok []byte) error {
						id, err := s.int()
						f.toks, f.ids = append(f.toks, tok), append(f.ids, id)
						return err
					})
				case "merges":
					f.merges = make([][2][]byte, 0, 50000)
					return s.array(func() error {
						m, err := s.merge()
						f.merges = append(f.merges, m)
						return err
					})
				}
				return s.skip()
			})
		case "added_tokens":
			return s.array(func() error {
				var content []byte
				id := -1
				err := s.object(func(key []byte) error {
					var err error
					switch string(key) {
					case "id":
						id, err = s.int()
					case "content":
						content, err = s.str()
					default:
						err = s.skip()
					}
					return err
				})
				if err == nil && id >= 0 && len(content) > 0 {
					f.added[string(content)] = id
				}
				return err
			})
		}
		return s.skip()
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if f.toks == nil {
		return nil, fmt.Errorf("parse %s: no model.vocab: not a BPE tokenizer file", path)
	}
	return f, nil
}

// encoder resolves the file's merges to ids. When its vocab agrees with the
// CTranslate2 vocabulary (known, knownIDs), as converted models do, knownIDs
// serves both and no second index is built.
func (f *bpeFile) encoder(known []string, knownIDs *strIndex) (*bpeEncoder, error) {
	e := &bpeEncoder{vocab: knownIDs, added: f.added}
	for i, tok := range f.toks {
		if id := f.ids[i]; id < 0 || id >= len(known) || known[id] != string(tok) {
			e.vocab = ownIndex(f.toks, f.ids)
			break
		}
	}
	for b := range 256 {
		id, ok := e.vocab.get(string(byteToRune[b]))
		if !ok {
			return nil, fmt.Errorf("parse %s: vocab lacks byte-level symbol for byte %#x: not a byte-level BPE tokenizer", f.path, b)
		}
		e.byteID[b] = id
	}
	n := len(e.vocab.keys)
	e.mergeRank, e.mergeSplit = make([]int32, n), make([]int32, n)
	for i := range e.mergeRank {
		e.mergeRank[i] = -1
	}
	var joined []byte
	for rank, m := range f.merges {
		id := 256 + rank // the usual layout, checked before hashing
		if id >= n || !isConcat(e.vocab.keys[id], m[0], m[1]) {
			joined = append(append(joined[:0], m[0]...), m[1]...)
			var ok bool
			if id, ok = e.vocab.getBytes(joined); !ok {
				return nil, fmt.Errorf("parse %s: merge %d (%q %q) makes a token missing from the vocab", f.path, rank, m[0], m[1])
			}
		}
		if e.mergeRank[id] < 0 {
			e.mergeRank[id], e.mergeSplit[id] = int32(rank), int32(len(m[0]))
			continue
		}
		a, okA := e.vocab.getBytes(m[0])
		b, okB := e.vocab.getBytes(m[1])
		if !okA || !okB {
			return nil, fmt.Errorf("parse %s: merge %d (%q %q) uses tokens missing from the vocab", f.path, rank, m[0], m[1])
		}
		if e.extra == nil {
			e.extra = map[uint64]bpeMerge{}
		}
		if _, dup := e.extra[pairKey(a, b)]; !dup {
			e.extra[pairKey(a, b)] = bpeMerge{rank: int32(rank), id: int32(id)}
		}
	}
	lens := map[int]bool{}
	for tok := range e.added {
		lens[len(tok)] = true
		e.addedLead[tok[0]] = true
	}
	for l := range lens {
		e.addedLens = append(e.addedLens, l)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(e.addedLens)))
	return e, nil
}

func (e *bpeEncoder) encode(text string) []int {
	var ids []int
	// Added tokens are split out first, leftmost-longest, and the text
	// between them is pre-tokenized separately.
	start := 0
	for i := 0; i < len(text); i++ {
		if !e.addedLead[text[i]] {
			continue
		}
		for _, l := range e.addedLens {
			if i+l > len(text) {
				continue
			}
			if id, ok := e.added[text[i:i+l]]; ok {
				ids = append(e.encodeOrdinary(ids, text[start:i]), id)
				i += l - 1
				start = i + 1
				break
			}
		}
	}
	return e.encodeOrdinary(ids, text[start:])
}

func (e *bpeEncoder) encodeOrdinary(ids []int, text string) []int {
	var sym []int
	for len(text) > 0 {
		n := preTokenLen(text)
		word := text[:n]
		text = text[n:]
		sym = sym[:0]
		for i := 0; i < len(word); i++ {
			sym = append(sym, e.byteID[word[i]])
		}
		ids = append(ids, e.bpe(sym)...)
	}
	return ids
}

// bpe applies merges to one pre-token's byte symbols, always the
// lowest-ranked pair first and the leftmost among equals, like tokenizers.
func (e *bpeEncoder) bpe(sym []int) []int {
	if len(sym) < 2 {
		return sym
	}
	// merges[j] is the merge of (sym[j], sym[j+1]); only neighbours of a
	// merge need looking up again.
	merges := make([]bpeMerge, len(sym)-1)
	var buf []byte
	for j := range merges {
		merges[j], buf = e.merge(sym[j], sym[j+1], buf)
	}
	for len(merges) > 0 {
		best := -1
		for j, m := range merges {
			if m.rank >= 0 && (best < 0 || m.rank < merges[best].rank) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		sym[best] = int(merges[best].id)
		sym = append(sym[:best+1], sym[best+2:]...)
		merges = append(merges[:best], merges[best+1:]...)
		if best > 0 {
			merges[best-1], buf = e.merge(sym[best-1], sym[best], buf)
		}
		if best < len(merges) {
			merges[best], buf = e.merge(sym[best], sym[best+1], buf)
		}
	}
	return sym
}

// merge finds the merge of the pair (a, b); rank is -1 when there is none.
func (e *bpeEncoder) merge(a, b int, buf []byte) (bpeMerge, []byte) {
	none := bpeMerge{rank: -1}
	if e.extra != nil {
		if m, ok := e.extra[pairKey(a, b)]; ok {
			none = m // an earlier-ranked merge below may still win
		}
	}
	ka, kb := e.vocab.keys[a], e.vocab.keys[b]
	buf = append(append(buf[:0], ka...), kb...)
	id, ok := e.vocab.getBytes(buf)
	if !ok || id >= len(e.mergeRank) || e.mergeRank[id] < 0 || int(e.mergeSplit[id]) != len(ka) {
		return none, buf
	}
	if none.rank >= 0 && none.rank < e.mergeRank[id] {
		return none, buf
	}
	return bpeMerge{rank: e.mergeRank[id], id: int32(id)}, buf
}

// isConcat reports whether s == a+b without building a+b.
func isConcat(s string, a, b []byte) bool {
	return len(s) == len(a)+len(b) && s[:len(a)] == string(a) && s[len(a):] == string(b)
}

// Rune classes of Whisper's pre-tokenizer regex
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
const (
	classSpace = iota
	classLetter
	classNumber
	classOther
)

func runeClass(r rune) int {
	switch {
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	}
	return classOther
}

// preTokenLen is the byte length of the regex match at the start of s
// (non-empty). Every rune belongs to some alternative, so matches tile s.
func preTokenLen(s string) int {
	if s[0] == '\'' {
		for _, c := range [...]string{"s", "t", "re", "ve", "m", "ll", "d"} {
			if strings.HasPrefix(s[1:], c) {
				return 1 + len(c)
			}
		}
	}
	r, size := utf8.DecodeRuneInString(s)
	cls := runeClass(r)
	if r == ' ' && len(s) > 1 {
		// " ?X+" with the optional space taken when a non-space follows.
		r2, size2 := utf8.DecodeRuneInString(s[1:])
		if c2 := runeClass(r2); c2 != classSpace {
			return 1 + size2 + classRun(s[1+size2:], c2)
		}
	}
	if cls != classSpace {
		return size + classRun(s[size:], cls)
	}
	// \s+(?!\S): a whitespace run followed by a non-space gives up its last
	// character to the next token (" word"), unless it is a single one (\s+).
	end, last := size, 0
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if runeClass(r) != classSpace {
			break
		}
		last = end
		end += n
	}
	if end == len(s) || last == 0 {
		return end
	}
	return last
}

// classRun is the byte length of the leading run of runes of class cls in s.
func classRun(s string, cls int) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if runeClass(r) != cls {
			break
		}
		n += size
	}
	return n
}

// jsonScanner is a minimal JSON reader over a byte slice, enough for
// tokenizer.json and vocabulary.json.
type jsonScanner struct {
	data  []byte
	pos   int
	arena []byte // backing store for strings that had escapes
}

func (s *jsonScanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON offset %d: %s", s.pos, fmt.Sprintf(format, args...))
}

// peek skips whitespace and returns the next byte (0 at the end).
func (s *jsonScanner) peek() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("expected %q", c)
	}
	s.pos++
	return nil
}

func (s *jsonScanner) end() error {
	if s.peek() != 0 {
		return s.errorf("trailing data")
	}
	return nil
}

// object calls fn for each key with the scanner at the value; fn must
// consume the value.
func (s *jsonScanner) object(fn func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.errorf("expected , or }")
		}
	}
}

// array calls fn for each element; fn must consume it.
func (s *jsonScanner) array(fn func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.errorf("expected , or ]")
		}
	}
}

// str reads a string. Without escapes the result aliases the input.
func (s *jsonScanner) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.pos
	i := bytes.IndexByte(s.data[start:], '"')
	if i < 0 {
		return nil, s.errorf("unterminated string")
	}
	esc := bytes.IndexByte(s.data[start:start+i], '\\')
	if esc < 0 {
		s.pos = start + i + 1
		return s.data[start : start+i], nil
	}
	i = esc
	// Strings with escapes are decoded into the arena, saving an allocation
	// each; bytes already handed out are never overwritten, because a full
	// arena is replaced rather than reused.
	base := len(s.arena)
	s.arena = append(s.arena, s.data[start:start+i]...)
	s.pos = start + i
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return s.arena[base:len(s.arena):len(s.arena)], nil
		case c != '\\':
			s.arena = append(s.arena, c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.data) {
			break
		}
		esc := s.data[s.pos+1]
		s.pos += 2
		switch esc {
		case '"', '\\', '/':
			s.arena = append(s.arena, esc)
		case 'b':
			s.arena = append(s.arena, '\b')
		case 'f':
			s.arena = append(s.arena, '\f')
		case 'n':
			s.arena = append(s.arena, '\n')
		case 'r':
			s.arena = append(s.arena, '\r')
		case 't':
			s.arena = append(s.arena, '\t')
		case 'u':
			r, err := s.hex4()
			if err != nil {
				return nil, err
			}
			if utf16IsHigh(r) && s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
				save := s.pos
				s.pos += 2
				lo, err := s.hex4()
				if err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else {
					s.pos = save
				}
			}
			s.arena = utf8.AppendRune(s.arena, r) // lone surrogates become U+FFFD
		default:
			return nil, s.errorf("bad escape \\%c", esc)
		}
	}
	return nil, s.errorf("unterminated string")
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

func (s *jsonScanner) hex4() (rune, error) {
	if s.pos+4 > len(s.data) {
		return 0, s.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(s.data[s.pos:s.pos+4]), 16, 32)
	if err != nil {
		return 0, s.errorf("bad \\u escape")
	}
	s.pos += 4
	return rune(v), nil
}

func (s *jsonScanner) int() (int, error) {
	s.ws()
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	v, err := strconv.Atoi(string(s.data[start:s.pos]))
	if err != nil {
		return 0, s.errorf("expected an integer")
	}
	return v, nil
}

// merge reads one BPE merge, either "a b" (older files) or ["a", "b"].
func (s *jsonScanner) merge() ([2][]byte, error) {
	var m [2][]byte
	if s.peek() == '"' {
		b, err := s.str()
		if err != nil {
			return m, err
		}
		i := bytes.IndexByte(b, ' ')
		if i < 0 || bytes.IndexByte(b[i+1:], ' ') >= 0 {
			return m, s.errorf("merge %q is not two space-separated tokens", b)
		}
		m[0], m[1] = b[:i], b[i+1:]
		return m, nil
	}
	n := 0
	err := s.array(func() error {
		b, err := s.str()
		if n < 2 {
			m[n] = b
		}
		n++
		return err
	})
	if err == nil && n != 2 {
		err = s.errorf("merge has %d parts, want 2", n)
	}
	return m, err
}

// skip consumes any JSON value.
func (s *jsonScanner) skip() error {
	switch c := s.peek(); c {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(s.skip)
	case '"':
		_, err := s.str()
		return err
	case 0:
		return s.errorf("unexpected end")
	default:
		// number, true, false, null
		start := s.pos
		for s.pos < len(s.data) {
			c := s.data[s.pos]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' {
				break
			}
			s.pos++
		}
		if s.pos == start {
			return s.errorf("unexpected %q", c)
		}
		return nil
	}
}

// strIndex maps strings to ids of a vocabulary with open addressing over
// int32 slots: several times faster to build and probe than a Go map for the
// 50k-token vocabularies read at every start.
type strIndex struct {
	seed  maphash.Seed
	keys  []string // id → string
	slots []int32  // -1 when empty, else an id
	mask  uint64
}

// newStrIndex sizes an index for up to n of keys' ids; add inserts them.
func newStrIndex(keys []string, n int) *strIndex {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	x := &strIndex{seed: maphash.MakeSeed(), keys: keys, slots: make([]int32, size), mask: uint64(size - 1)}
	for i := range x.slots {
		x.slots[i] = -1
	}
	return x
}

// ownIndex indexes the (tok, id) pairs of a tokenizer.json vocab.
func ownIndex(toks [][]byte, ids []int) *strIndex {
	maxID := -1
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	keys := make([]string, maxID+1)
	for i, tok := range toks {
		if ids[i] >= 0 {
			keys[ids[i]] = string(tok)
		}
	}
	x := newStrIndex(keys, len(ids))
	for _, id := range ids {
		if id >= 0 {
			x.add(id)
		}
	}
	return x
}

// add inserts keys[id] unless the string is already present (the first id
// wins, as in CTranslate2).
func (x *strIndex) add(id int) {
	k := x.keys[id]
	for h := maphash.String(x.seed, k) & x.mask; ; h = (h + 1) & x.mask {
		s := x.slots[h]
		if s < 0 {
			x.slots[h] = int32(id)
			return
		}
		if x.keys[s] == k {
			return
		}
	}
}

func (x *strIndex) get(k string) (int, bool) {
	for h := maphash.String(x.seed, k) & x.mask; ; h = (h + 1) & x.mask {
		s := x.slots[h]
		if s < 0 {
			return 0, false
		}
		if x.keys[s] == k {
			return int(s), true
		}
	}
}

func (x *strIndex) getBytes(k []byte) (int, bool) {
	for h := maphash.Bytes(x.seed, k) & x.mask; ; h = (h + 1) & x.mask {
		s := x.slots[h]
		if s < 0 {
			return 0, false
		}
		if x.keys[s] == string(k) {
			return int(s), true
		}
	}
}
