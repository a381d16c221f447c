package whisper

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
)

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
	data, err := ct2bin.ReadModelFile(path) // at most ct2bin.MaxTokenizerJSON
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
		// BPE is quadratic in a word's length: a word longer than any real
		// one (a prompt of one 1 MB "word") is merged in pieces, which
		// differs from Hugging Face only for such words.
		for len(word) > 0 {
			piece := word[:min(len(word), maxBPEWord)]
			word = word[len(piece):]
			sym = sym[:0]
			for i := 0; i < len(piece); i++ {
				sym = append(sym, e.byteID[piece[i]])
			}
			ids = append(ids, e.bpe(sym)...)
		}
	}
	return ids
}

// maxBPEWord is the longest pre-token merged as one, in bytes: Whisper's
// longest token is 33 bytes, and no word of any language comes near.
const maxBPEWord = 1 << 10

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
