package whisper

import (
	"math"
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/wire"
)

// wordsTokenizer is a byte-level vocabulary of the given pieces (raw bytes)
// followed by <|endoftext|>, which is its EOT.
func wordsTokenizer(pieces ...string) *Tokenizer {
	vocab := make([]string, 0, len(pieces)+1)
	for _, p := range pieces {
		vocab = append(vocab, toByteLevel(p))
	}
	vocab = append(vocab, "<|endoftext|>")
	return &Tokenizer{vocab: vocab, eot: len(pieces)}
}

func TestSplitWords(t *testing.T) {
	ni := "你" // three bytes, spelled here over two tokens
	tok := wordsTokenizer(" Hello", ",", " wor", "ld", "!", " don", "'t", ni[:2], ni[2:], "好", " (", "...")
	eot := tok.EOT()
	for _, tc := range []struct {
		name  string
		ids   []int
		lang  string
		words []string
		ids2  [][]int
	}{
		{"spaces start words, pieces join them", []int{0, 1, 2, 3, 4, eot}, "en",
			[]string{" Hello", ",", " world", "!", "<|endoftext|>"}, [][]int{{0}, {1}, {2, 3}, {4}, {eot}}},
		{"a piece with more than punctuation joins the word", []int{5, 6, eot}, "en",
			[]string{" don't", "<|endoftext|>"}, [][]int{{5, 6}, {eot}}},
		{"punctuation that is not in string.punctuation (as a substring) joins the word", []int{10, 0, 11, 1, eot}, "en",
			[]string{" (", " Hello...", ",", "<|endoftext|>"}, [][]int{{10}, {0, 11}, {1}, {eot}}},
		{"a character cut over two tokens stays whole", []int{7, 8, 9, eot}, "zh",
			[]string{"你", "好", "<|endoftext|>"}, [][]int{{7, 8}, {9}, {eot}}},
		{"without spaces an English split would join them", []int{7, 8, 9, eot}, "en",
			[]string{"你好", "<|endoftext|>"}, [][]int{{7, 8, 9}, {eot}}},
		{"bytes cut off before EOT go with it", []int{0, 7, eot}, "zh",
			[]string{" Hello", "\ufffd<|endoftext|>"}, [][]int{{0}, {7, eot}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			words, groups := tok.splitWords(tc.ids, tc.lang)
			if !slices.Equal(words, tc.words) {
				t.Errorf("words %q, want %q", words, tc.words)
			}
			if !slices.EqualFunc(groups, tc.ids2, slices.Equal) {
				t.Errorf("groups %v, want %v", groups, tc.ids2)
			}
		})
	}
}

// path builds an alignment path from the frame at which each text index
// starts, stepping one frame at a time in between.
func path(starts ...int) [][2]int {
	var p [][2]int
	for i, s := range starts {
		end := s + 1
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		for f := s; f < max(end, s+1); f++ {
			p = append(p, [2]int{i, f})
		}
	}
	return p
}

func TestTimeWords(t *testing.T) {
	// Three text tokens and EOT; the words are " Hi" (1 token) and " there" (2).
	al := wire.AlignResult{Alignments: path(10, 25, 30, 50), TextTokenProbs: []float32{0.9, 0.5, 0.7}}
	got, err := timeWords([]string{" Hi", " there", "<|endoftext|>"}, [][]int{{1}, {2, 3}, {99}}, al)
	if err != nil {
		t.Fatal(err)
	}
	want := []wordTiming{
		{word: " Hi", tokens: []int{1}, start: 0.2, end: 0.5, prob: 0.9},
		{word: " there", tokens: []int{2, 3}, start: 0.5, end: 1.0, prob: 0.6},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.word != w.word || !slices.Equal(g.tokens, w.tokens) || !near(g.start, w.start) || !near(g.end, w.end) || math.Abs(g.prob-w.prob) > 1e-6 {
			t.Errorf("word %d: %+v, want %+v", i, g, w)
		}
	}
	if ws, err := timeWords([]string{"<|endoftext|>"}, [][]int{{99}}, al); ws != nil || err != nil {
		t.Errorf("EOT alone: %v %v, want no words", ws, err)
	}
	if _, err := timeWords([]string{" Hi", " there", "<|endoftext|>"}, [][]int{{1}, {2, 3}, {99}},
		wire.AlignResult{Alignments: path(10, 25), TextTokenProbs: []float32{0.9, 0.5, 0.7}}); err == nil {
		t.Error("a path shorter than the text: no error")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestClampLongWords(t *testing.T) {
	type w struct {
		word       string
		start, end float64
	}
	for _, tc := range []struct {
		name           string
		in, want       []w
		median, maxDur float64
	}{
		{"a long sentence end is cut to twice the median",
			[]w{{" A", 0, 0.2}, {" b", 0.2, 0.4}, {".", 0.4, 2.0}},
			[]w{{" A", 0, 0.2}, {" b", 0.2, 0.4}, {".", 0.4, 0.8}}, 0.2, 0.4},
		{"a long word after a sentence end starts later",
			[]w{{" A", 0, 0.2}, {".", 0.2, 0.4}, {" Then", 0.4, 3.0}, {" c", 3.0, 3.3}},
			[]w{{" A", 0, 0.2}, {".", 0.2, 0.4}, {" Then", 2.5, 3.0}, {" c", 3.0, 3.3}}, 0.25, 0.5},
		{"a long word mid-sentence is left alone; zero lengths do not count",
			[]w{{" A", 0, 0}, {" b", 0, 0.3}, {" c", 0.3, 3.0}, {" d", 3.0, 3.1}},
			[]w{{" A", 0, 0}, {" b", 0, 0.3}, {" c", 0.3, 3.0}, {" d", 3.0, 3.1}}, 0.3, 0.6},
		{"the median is at most 0.7 s",
			[]w{{" A", 0, 1}, {" b", 1, 2}, {".", 2, 4}},
			[]w{{" A", 0, 1}, {" b", 1, 2}, {".", 2, 3.4}}, 0.7, 1.4},
		{"no lengths: nothing to go by",
			[]w{{" A", 1, 1}, {".", 1, 1}}, []w{{" A", 1, 1}, {".", 1, 1}}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := make([]wordTiming, len(tc.in))
			for i, x := range tc.in {
				ws[i] = wordTiming{word: x.word, start: x.start, end: x.end}
			}
			median, maxDur := clampLongWords(ws)
			if !near(median, tc.median) || !near(maxDur, tc.maxDur) {
				t.Errorf("median %.3f max %.3f, want %.3f %.3f", median, maxDur, tc.median, tc.maxDur)
			}
			for i, x := range tc.want {
				if !near(ws[i].start, x.start) || !near(ws[i].end, x.end) {
					t.Errorf("%q: %.2f–%.2f, want %.2f–%.2f", x.word, ws[i].start, ws[i].end, x.start, x.end)
				}
			}
		})
	}
}

func TestMergePunctuation(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
		// tokens of each entry after merging, by the index each word had
		tokens [][]int
	}{
		{"closing punctuation joins the word before",
			[]string{" Hello", ",", " world", "."}, []string{" Hello,", "", " world.", ""},
			[][]int{{0, 1}, nil, {2, 3}, nil}},
		{"an opening quote with its space joins the word after",
			[]string{" He", " said", " \"", "hi", "\""}, []string{" He", " said", "", " \"hi\"", ""},
			[][]int{{0}, {1}, nil, {2, 3, 4}, nil}},
		{"runs of punctuation join one by one",
			[]string{" ¿", " (", "Qué", ")", "?", "”"}, []string{"", "", " ¿ (Qué)?”", "", "", ""},
			[][]int{nil, nil, {0, 1, 2, 3, 4, 5}, nil, nil, nil}},
		{"no space: an opening mark stays; a word ending in a space takes nothing",
			[]string{"(", "a ", "."}, []string{"(", "a ", "."},
			[][]int{{0}, {1}, {2}}},
		{"punctuation as part of a longer word is not merged",
			[]string{" a", " ...", " b"}, []string{" a", " ...", " b"},
			[][]int{{0}, {1}, {2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := make([]wordTiming, len(tc.in))
			for i, w := range tc.in {
				ws[i] = wordTiming{word: w, tokens: []int{i}}
			}
			mergePunctuation(ws)
			for i := range ws {
				if ws[i].word != tc.want[i] || !slices.Equal(ws[i].tokens, tc.tokens[i]) {
					t.Errorf("entry %d: %q %v, want %q %v", i, ws[i].word, ws[i].tokens, tc.want[i], tc.tokens[i])
				}
			}
		})
	}
}

func TestPlaceWords(t *testing.T) {
	words := func(ws ...wordTiming) []wordTiming { return ws }
	wt := func(word string, n int, start, end float64) wordTiming {
		return wordTiming{word: word, tokens: make([]int, n), start: start, end: end, prob: 0.5}
	}
	type span struct{ start, end float64 }
	for _, tc := range []struct {
		name           string
		segs           []span
		counts         []int
		ws             []wordTiming
		offset         float64
		median, maxDur float64
		lastSpeech     float64
		wantWords      [][]span
		wantSegs       []span
		wantLastSpeech float64
	}{
		{name: "each segment takes words until it has its tokens; an emptied entry is skipped",
			segs: []span{{10, 10.6}, {10.6, 11.2}}, counts: []int{3, 1},
			ws:     words(wt(" One", 1, 0, 0.3), wt(" two,", 2, 0.3, 0.6), wt("", 0, 0.6, 0.6), wt(" Three", 1, 0.6, 1.2)),
			offset: 10, median: 0.3, maxDur: 0.6, lastSpeech: 9.9,
			wantWords: [][]span{{{10, 10.3}, {10.3, 10.6}}, {{10.6, 11.2}}},
			wantSegs:  []span{{10, 10.6}, {10.6, 11.2}}, wantLastSpeech: 11.2},
		{name: "a long first word after a pause is cut to the maximum",
			segs: []span{{0, 3}}, counts: []int{2},
			ws:     words(wt(" Well", 1, 0, 2.5), wt(" yes", 1, 2.5, 2.8)),
			median: 0.2, maxDur: 0.4,
			wantWords: [][]span{{{2.1, 2.5}, {2.5, 2.8}}},
			wantSegs:  []span{{2.1, 2.8}}, wantLastSpeech: 2.8},
		{name: "after a pause, a long second word moves the boundary between the two",
			segs: []span{{0, 4}}, counts: []int{2},
			ws:     words(wt(" So", 1, 0, 2), wt(" then", 1, 2, 4)),
			median: 0.2, maxDur: 0.4,
			wantWords: [][]span{{{3.2, 3.6}, {3.6, 4}}},
			wantSegs:  []span{{3.2, 4}}, wantLastSpeech: 4},
		{name: "the segment's own start and end win over words that overreach them",
			segs: []span{{1.0, 2.0}}, counts: []int{2},
			ws:     words(wt(" Far", 1, 0.2, 1.3), wt(" off", 1, 1.3, 2.8)),
			median: 0.5, maxDur: 1.2, lastSpeech: 0.1,
			wantWords: [][]span{{{0.8, 1.3}, {1.3, 2.0}}},
			wantSegs:  []span{{1.0, 2.0}}, wantLastSpeech: 2.0},
		{name: "a segment with no text keeps its bounds and the last speech",
			segs: []span{{0, 1}, {1, 2}}, counts: []int{0, 1},
			ws:     words(wt(" Hi", 1, 1.1, 1.4)),
			median: 0.3, maxDur: 0.6, lastSpeech: 0.9,
			wantWords: [][]span{nil, {{1.1, 1.4}}},
			wantSegs:  []span{{0, 1}, {1.1, 1.4}}, wantLastSpeech: 1.4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			segs := make([]rawSegment, len(tc.segs))
			for i, s := range tc.segs {
				segs[i] = rawSegment{start: s.start, end: s.end}
			}
			last := placeWords(segs, tc.counts, tc.ws, tc.offset, tc.median, tc.maxDur, tc.lastSpeech)
			if !near(last, tc.wantLastSpeech) {
				t.Errorf("last speech %.2f, want %.2f", last, tc.wantLastSpeech)
			}
			for i, s := range segs {
				if !near(s.start, tc.wantSegs[i].start) || !near(s.end, tc.wantSegs[i].end) {
					t.Errorf("segment %d: %.2f–%.2f, want %.2f–%.2f", i, s.start, s.end, tc.wantSegs[i].start, tc.wantSegs[i].end)
				}
				if len(s.words) != len(tc.wantWords[i]) {
					t.Fatalf("segment %d: words %+v, want %v", i, s.words, tc.wantWords[i])
				}
				for j, w := range s.words {
					if want := tc.wantWords[i][j]; !near(w.Start, want.start) || !near(w.End, want.end) {
						t.Errorf("segment %d word %q: %.2f–%.2f, want %.2f–%.2f", i, w.Word, w.Start, w.End, want.start, want.end)
					}
				}
			}
		})
	}
}

func TestLastWordEnd(t *testing.T) {
	segs := []rawSegment{{start: 0, end: 1, words: []Word{{End: 0.8}}}, {start: 1, end: 2}}
	if end, ok := lastWordEnd(segs); !ok || end != 0.8 {
		t.Errorf("last word end %.2f %v, want 0.8 (the last segment has no words)", end, ok)
	}
	if end, ok := lastWordEnd(segs[1:]); !ok || end != 2 {
		t.Errorf("no words: %.2f %v, want the segment's end 2", end, ok)
	}
	if _, ok := lastWordEnd(nil); ok {
		t.Error("no segments: ok")
	}
}
