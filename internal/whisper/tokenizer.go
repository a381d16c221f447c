package whisper

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
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
	vocab, err := ct2bin.ReadVocabulary(modelDir)
	bpe := <-bpeCh
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", modelDir, err)
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
		// len 5 at least: "<|>" has the prefix and the suffix, overlapping,
		// and no code (a forged vocabulary once panicked here).
		if len(tok) < 5 || !strings.HasPrefix(tok, "<|") || !strings.HasSuffix(tok, "|>") {
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
		return nil, tokenizerJSONErr(modelDir, bpe.err)
	default:
		if t.enc, err = bpe.f.encoder(vocab, t.ids); err != nil {
			return nil, tokenizerJSONErr(modelDir, err)
		}
	}
	t.suppress = t.buildSuppressTokens()
	return t, nil
}

// tokenizerJSONErr is a tokenizer.json that cannot be used, with the fix.
func tokenizerJSONErr(modelDir string, err error) error {
	if errors.Is(err, ct2bin.ErrInvalidModel) { // says its fix already
		return fmt.Errorf("load tokenizer %s: %w", modelDir, err)
	}
	return fmt.Errorf("load tokenizer %s: %w: the model's tokenizer.json is damaged or not this model's — re-download the model, or copy its tokenizer.json again", modelDir, err)
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
// dropped, byte-level tokens become bytes, and invalid UTF-8 (a sequence cut
// off mid-character) is dropped rather than shown as U+FFFD.
func (t *Tokenizer) Decode(ids []int) string {
	return dropInvalidUTF8(t.bytes(ids))
}

// decodeReplacing is Decode with invalid UTF-8 as U+FFFD, exactly as Hugging
// Face tokenizers decodes: the compression ratio that decides temperature
// fallback is computed on this text, as faster-whisper does.
func (t *Tokenizer) decodeReplacing(ids []int) string {
	return lossyUTF8(t.bytes(ids))
}

// bytes concatenates the bytes of the text tokens among ids.
func (t *Tokenizer) bytes(ids []int) []byte {
	var buf []byte
	for _, id := range ids {
		if id < 0 || id >= t.eot || id >= len(t.vocab) {
			continue
		}
		buf = appendByteLevel(buf, t.vocab[id])
	}
	return buf
}
