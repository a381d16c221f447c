package whisper

import (
	"sort"
	"strings"
)

// hotwordBudget is how many prompt tokens the hotwords and the vocabulary
// may take: all of the previous-text budget (prompt says why they share it).
const hotwordBudget = maxLength/2 - 1

// FitVocabulary splits opt's vocabulary into the terms that reach the
// decoder and those left out: terms are kept whole and in order, and the
// first one that no longer fits in the prompt's budget (with the hotwords
// before it) is left out with every term after it. So the terms written
// first are the ones kept: a user with a long list puts the important
// ones first.
func (t *Transcriber) FitVocabulary(opt Options) (kept, dropped []string) {
	return t.tok.FitVocabulary(opt)
}

// FitVocabulary is Transcriber.FitVocabulary for a model's tokenizer alone,
// for checks that load no model.
func (tok *Tokenizer) FitVocabulary(opt Options) (kept, dropped []string) {
	var terms []string
	for _, w := range opt.Vocabulary {
		if w = strings.TrimSpace(w); w != "" {
			terms = append(terms, w)
		}
	}
	fits := func(n int) bool {
		o := opt
		o.Vocabulary = terms[:n]
		text := HotwordText(o)
		if len(text)+1 > maxPromptBytes {
			return false
		}
		ids, err := tok.Encode(" " + text)
		return err == nil && len(ids) <= hotwordBudget
	}
	// More terms never take fewer tokens, so the count that fits is found by
	// bisection: a 500-term list costs about ten encodings, not 500.
	n := sort.Search(len(terms)+1, func(n int) bool { return !fits(n) }) - 1
	if n < 0 {
		n = 0
	}
	return terms[:n], terms[n:]
}
