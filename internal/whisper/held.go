package whisper

import (
	"slices"
	"strings"
)

// Pass is what one transcription decoded in its recording's last window
// (Result.Last). A transcription of the same recording grown longer, as a
// hold's release is, may force as its prefix what two such passes agree on
// (Options.Held): only the words after them are then generated.
type Pass struct {
	// Seek is the window's first frame in the recording: the time the
	// tokens' timestamps count from.
	Seek int
	// Previous is the window's previous-text prompt: forced text is of use
	// only where the model was told the same.
	Previous []int
	// Tokens are the decoded tokens, timestamps included.
	Tokens []int
}

// minForced is the fewest tokens worth forcing: under it the release
// decodes the window whole, as without a hold.
const minForced = 3

// agreed is the prefix to force in the window at seek decoded after
// previous: the tokens the last two passes of held agree on (local
// agreement), ending at a word boundary both passes share: after a word,
// before the next word or a timestamp. The older pass ended at a pause, so
// what it agrees on with the newer one lies before that pause. nil when the
// passes are of another window or prompt, or agree on too little.
func (t *Transcriber) agreed(held []Pass, seek int, previous []int) []int {
	if len(held) < 2 {
		return nil
	}
	a, b := held[len(held)-2], held[len(held)-1]
	if a.Seek != seek || b.Seek != seek || !slices.Equal(a.Previous, previous) || !slices.Equal(b.Previous, previous) {
		return nil
	}
	n := 0
	for n < len(a.Tokens) && n < len(b.Tokens) && a.Tokens[n] == b.Tokens[n] {
		n++
	}
	// The token after the cut is agreed too, so the last forced word is
	// whole in both passes (" quarter" is not forced when one pass goes on
	// "ly" and the other ".").
	for k := n - 1; k >= minForced; k-- {
		if t.boundary(b.Tokens, k) {
			return slices.Clone(b.Tokens[:k])
		}
	}
	return nil
}

// boundary reports whether the free decode can start at tokens[k] with
// text: a word that goes on the segment of the text before it, or the
// first text of a segment after its opening timestamp. Never at a
// timestamp: CTranslate2's timestamp rules look at the generated tokens
// only, so a closing timestamp generated first is taken for a pair's
// second and the next segment cannot open; the decode then ends early.
func (t *Transcriber) boundary(tokens []int, k int) bool {
	ts, eot := t.tok.TimestampBegin(), t.tok.EOT()
	next, prev := tokens[k], tokens[k-1]
	if next >= eot {
		return false // a timestamp (or a special token)
	}
	if prev < eot {
		return strings.HasPrefix(t.tok.Decode([]int{next}), " ")
	}
	return prev >= ts && k >= 2 && tokens[k-2] >= ts // after a closing and an opening timestamp
}
