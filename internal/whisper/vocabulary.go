package whisper

import (
	"strings"
	"unicode"
)

// The vocabulary goes into the decoder's prompt, and a prompt changes more
// than the words in it: with twenty names in front, the base model also
// writes "collars" for "callers" and "ill-sposed" for "ill-disposed" in
// sentences that hold none of them (about a point of WER on real speech,
// docs/benchmarks.md#vocabulary). So a window decoded with the vocabulary
// keeps that decode only when it writes one of the terms; otherwise the
// window is decoded again without the vocabulary, on the same encoder
// output (the worker caches it), and that decode is the window's text. The
// prompted decode is the best judge of whether a term was said: the words
// the model writes without help ("Shivon", "FIFA" for Siobhan, Aoife) are
// too far from the spelling for any fuzzy match.

// withoutVocabulary is opt with the vocabulary removed (hotwords, which
// follow faster-whisper's meaning, stay).
func withoutVocabulary(opt Options) Options {
	opt.Vocabulary = nil
	return opt
}

// hasVocabulary reports whether opt has a non-blank vocabulary entry.
func hasVocabulary(opt Options) bool {
	for _, w := range opt.Vocabulary {
		if strings.TrimSpace(w) != "" {
			return true
		}
	}
	return false
}

// mentionsTerm reports whether text contains one of terms as whole words,
// ignoring case and punctuation ("comfyui" and "ComfyUI," match "ComfyUI").
func mentionsTerm(text string, terms []string) bool {
	padded := " " + foldWords(text) + " "
	for _, term := range terms {
		if f := foldWords(term); f != "" && strings.Contains(padded, " "+f+" ") {
			return true
		}
	}
	return false
}

// foldWords lower-cases s and turns every run of characters that are not
// letters or digits into one space.
func foldWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
