package whisper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// Word timestamps follow faster-whisper 1.2.1's word_timestamps=True: the
// engine aligns a window's text tokens to its audio (DTW over the
// cross-attention of the model's alignment heads), the tokens are grouped
// into words, punctuation joins its word, and a few rules trim words that
// the alignment stretched over a pause.

// Word is one timed word. Its text is as the model wrote it, with the
// leading space and the punctuation merged into it.
type Word struct {
	Word        string  `json:"word"`
	Start       float64 `json:"start"`
	End         float64 `json:"end"`
	Probability float64 `json:"probability"`
}

// ErrNoWordTimestamps means Options.WordTimestamps was asked of a model or
// an engine that cannot align words; the error wrapping it says why.
var ErrNoWordTimestamps = errors.New("word timestamps are not available")

// Aligner is an engine that can align a window's text tokens to its audio.
type Aligner interface {
	Align(ctx context.Context, win wire.Window, req wire.AlignRequest) (wire.AlignResult, error)
}

const (
	// faster-whisper's defaults for merging punctuation into words.
	prependPunctuation = "\"'“¿([{-"
	appendPunctuation  = "\"'.。,，!！?？:：”)]}、"
	sentenceEnds       = ".。!！?？"
	// asciiPunctuation is Python's string.punctuation, which decides
	// whether a piece of a word starts a new word.
	asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

	medianFilterWidth = 7
	tokensPerSecond   = SampleRate / (HopLength * inputStride) // encoder frames: 20 ms each
)

// UseAligner lets Options.WordTimestamps time words with a. When a is nil,
// unavailable (wrapping ErrNoWordTimestamps) says why this model or engine
// cannot, and requests for words fail with it before decoding anything.
func (t *Transcriber) UseAligner(a Aligner, unavailable error) {
	t.aligner, t.noAligner = a, unavailable
}

// wordsUnavailable is the error a request for words gets, or nil.
func (t *Transcriber) wordsUnavailable() error {
	switch {
	case t.aligner != nil:
		return nil
	case t.noAligner != nil:
		return t.noAligner
	default:
		return fmt.Errorf("%w: this engine cannot align words", ErrNoWordTimestamps)
	}
}

// CheckAlignmentHeads reports a model whose config.json names no alignment
// heads. CTranslate2 would then align on every head of the last layers,
// which faster-whisper's rules were not tuned for, so such a model gets no
// word timestamps rather than poor ones.
func CheckAlignmentHeads(modelDir string) error {
	b, err := ct2bin.ReadModelFile(filepath.Join(modelDir, "config.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read the model's config: %w", err)
	}
	var c struct {
		AlignmentHeads [][2]int `json:"alignment_heads"`
	}
	if err == nil {
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("read the model's config.json: %w", err)
		}
	}
	if len(c.AlignmentHeads) == 0 {
		return fmt.Errorf("%w: the model %s lists no alignment_heads in its config.json, so its words cannot be timed; "+
			"use a model converted with them (such as Systran's faster-whisper models, or one converted again with a recent ct2-transformers-converter), "+
			"or ask for segment timestamps only", ErrNoWordTimestamps, filepath.Base(modelDir))
	}
	return nil
}

// wordTiming is one word of a window's alignment, timed from the window's start.
type wordTiming struct {
	word       string
	tokens     []int
	start, end float64
	prob       float64
}

// addWords times the words of one decoded window and hands each segment
// its own (rawSegment.words), moving segment bounds as faster-whisper does.
// It returns the end of the last segment with words, the last speech.
func (t *Transcriber) addWords(ctx context.Context, win wire.Window, sot []int, lang string, segs []rawSegment, numFrames int, offset, lastSpeech float64) (float64, error) {
	var text []int
	counts := make([]int, len(segs))
	for i, s := range segs {
		for _, id := range s.tokens {
			if id < t.tok.EOT() {
				text = append(text, id)
				counts[i]++
			}
		}
	}
	if len(text) == 0 {
		return lastSpeech, nil
	}
	ectx, err := engineContext(ctx)
	if err != nil {
		return 0, err
	}
	al, err := t.aligner.Align(ectx, win, wire.AlignRequest{
		StartSequence: sot, TextTokens: text, NumFrames: numFrames, MedianFilterWidth: medianFilterWidth,
	})
	if err != nil {
		return 0, fmt.Errorf("align words: %w", err)
	}
	words, groups := t.tok.splitWords(append(slices.Clip(text), t.tok.EOT()), lang)
	ws, err := timeWords(words, groups, al)
	if err != nil {
		return 0, err
	}
	median, maxDur := clampLongWords(ws)
	mergePunctuation(ws)
	return placeWords(segs, counts, ws, offset, median, maxDur, lastSpeech), nil
}

// splitWords groups tokens into words: at spaces and punctuation, or, in
// languages written without spaces, at every whole character.
func (t *Tokenizer) splitWords(ids []int, lang string) ([]string, [][]int) {
	switch lang {
	case "zh", "ja", "th", "lo", "my", "yue":
		return t.splitOnCharacters(ids)
	}
	pieces, groups := t.splitOnCharacters(ids)
	var words []string
	var wordIDs [][]int
	for i, p := range pieces {
		special := groups[i][0] >= t.eot
		if special || strings.HasPrefix(p, " ") || strings.Contains(asciiPunctuation, strings.TrimSpace(p)) || len(words) == 0 {
			words = append(words, p)
			wordIDs = append(wordIDs, slices.Clone(groups[i]))
			continue
		}
		words[len(words)-1] += p
		wordIDs[len(wordIDs)-1] = append(wordIDs[len(wordIDs)-1], groups[i]...)
	}
	return words, wordIDs
}

// splitOnCharacters cuts ids where their bytes end on a character
// boundary: a character spelled over several byte-level tokens stays whole.
// A special token (EOT) ends the piece it closes.
func (t *Tokenizer) splitOnCharacters(ids []int) ([]string, [][]int) {
	var pieces []string
	var groups [][]int
	var buf []byte
	var cur []int
	for _, id := range ids {
		cur = append(cur, id)
		special := id >= t.eot
		if special {
			if id < len(t.vocab) {
				buf = append(buf, t.vocab[id]...)
			}
		} else if id >= 0 && id < len(t.vocab) {
			buf = appendByteLevel(buf, t.vocab[id])
		}
		if special || !cutMidCharacter(buf) {
			pieces = append(pieces, lossyUTF8(buf))
			groups = append(groups, cur)
			buf, cur = nil, nil
		}
	}
	if len(cur) > 0 {
		pieces = append(pieces, lossyUTF8(buf))
		groups = append(groups, cur)
	}
	return pieces, groups
}

// cutMidCharacter reports bytes that end inside a UTF-8 sequence, which the
// next token completes. Bytes that can never be valid do not count.
func cutMidCharacter(b []byte) bool {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 && !utf8.FullRune(b[i:]) {
			return true
		}
		i += n
	}
	return false
}

// timeWords times each word (the last, EOT, only ends the one before it):
// a word starts where the alignment path first reaches its first token
// and ends where it reaches the next word's.
func timeWords(words []string, groups [][]int, al wire.AlignResult) ([]wordTiming, error) {
	if len(groups) <= 1 {
		return nil, nil
	}
	var jumps []float64 // the time of each text index's first step
	for i, p := range al.Alignments {
		if i == 0 || p[0] != al.Alignments[i-1][0] {
			jumps = append(jumps, float64(p[1])/tokensPerSecond)
		}
	}
	out := make([]wordTiming, 0, len(groups)-1)
	from := 0
	for i, g := range groups[:len(groups)-1] {
		to := from + len(g)
		if to >= len(jumps) || to > len(al.TextTokenProbs) {
			return nil, fmt.Errorf("align words: the alignment covers %d tokens and %d probabilities, fewer than the %d text tokens",
				len(jumps), len(al.TextTokenProbs), to)
		}
		var sum float64
		for _, p := range al.TextTokenProbs[from:to] {
			sum += float64(p)
		}
		out = append(out, wordTiming{word: words[i], tokens: slices.Clone(g), start: jumps[from], end: jumps[to], prob: sum / float64(len(g))})
		from = to
	}
	return out, nil
}

// clampLongWords shortens words the alignment stretched over a pause at a
// sentence end, to twice the median word length (at most 1.4 s). It returns
// the median and that maximum, which placeWords uses too.
func clampLongWords(ws []wordTiming) (median, maxDur float64) {
	var durs []float64
	for _, w := range ws {
		if d := w.end - w.start; d != 0 {
			durs = append(durs, d)
		}
	}
	if len(durs) == 0 {
		return 0, 0
	}
	slices.Sort(durs)
	median = durs[len(durs)/2]
	if len(durs)%2 == 0 {
		median = (durs[len(durs)/2-1] + median) / 2
	}
	median = min(0.7, median)
	maxDur = 2 * median
	for i := 1; i < len(ws); i++ {
		if ws[i].end-ws[i].start <= maxDur {
			continue
		}
		// As faster-whisper, by containment: "." is a sentence end, "!?" too.
		if strings.Contains(sentenceEnds, ws[i].word) {
			ws[i].end = ws[i].start + maxDur
		} else if strings.Contains(sentenceEnds, ws[i-1].word) {
			ws[i].start = ws[i].end - maxDur
		}
	}
	return median, maxDur
}

// mergePunctuation joins opening punctuation to the word after it and
// closing punctuation to the word before it; the punctuation's own entry
// is left empty (its tokens still count toward its segment's).
func mergePunctuation(ws []wordTiming) {
	for i, j := len(ws)-2, len(ws)-1; i >= 0; i-- {
		prev, next := &ws[i], &ws[j]
		if strings.HasPrefix(prev.word, " ") && strings.Contains(prependPunctuation, strings.TrimSpace(prev.word)) {
			next.word = prev.word + next.word
			next.tokens = append(slices.Clone(prev.tokens), next.tokens...)
			prev.word, prev.tokens = "", nil
		} else {
			j = i
		}
	}
	for i, j := 0, 1; j < len(ws); j++ {
		prev, next := &ws[i], &ws[j]
		if !strings.HasSuffix(prev.word, " ") && strings.Contains(appendPunctuation, next.word) {
			prev.word += next.word
			prev.tokens = append(prev.tokens, next.tokens...)
			next.word, next.tokens = "", nil
		} else {
			i = j
		}
	}
}

// placeWords hands the window's words to its segments in order, each
// taking words until it has its count of text tokens, and applies
// faster-whisper's boundary rules: a first word after a pause may not be
// longer than maxDur, and a segment's first and last word give way to the
// segment's own timestamps when they reach over half a second beyond
// them; otherwise the segment takes the words' bounds. offset is the
// window's start; lastSpeech the end of the last segment with words.
func placeWords(segs []rawSegment, counts []int, ws []wordTiming, offset, median, maxDur, lastSpeech float64) float64 {
	wi := 0
	for s := range segs {
		var words []Word
		for saved := 0; wi < len(ws) && saved < counts[s]; wi++ {
			w := ws[wi]
			if w.word != "" {
				words = append(words, Word{Word: w.word, Start: round2(offset + w.start), End: round2(offset + w.end), Probability: w.prob})
			}
			saved += len(w.tokens)
		}
		segs[s].words = words
		if len(words) == 0 {
			continue
		}
		seg, first, last := &segs[s], &words[0], &words[len(words)-1]
		if first.End-lastSpeech > median*4 &&
			(first.End-first.Start > maxDur || (len(words) > 1 && words[1].End-first.Start > maxDur*2)) {
			if len(words) > 1 && words[1].End-words[1].Start > maxDur {
				boundary := max(words[1].End/2, words[1].End-maxDur)
				first.End, words[1].Start = boundary, boundary
			}
			first.Start = max(0, first.End-maxDur)
		}
		if seg.start < first.End && seg.start-0.5 > first.Start {
			first.Start = max(0, min(first.End-median, seg.start))
		} else {
			seg.start = first.Start
		}
		if seg.end > last.Start && seg.end+0.5 < last.End {
			last.End = max(last.Start+median, seg.end)
		} else {
			seg.end = last.End
		}
		lastSpeech = seg.end
	}
	return lastSpeech
}

// lastWordEnd is where the window's speech ends: its last word's end, else
// its last segment's.
func lastWordEnd(segs []rawSegment) (float64, bool) {
	for i := len(segs) - 1; i >= 0; i-- {
		if n := len(segs[i].words); n > 0 {
			return segs[i].words[n-1].End, true
		}
	}
	if len(segs) == 0 {
		return 0, false
	}
	return segs[len(segs)-1].end, true
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
