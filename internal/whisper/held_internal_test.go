package whisper

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// agreed forces what the last two passes share, up to a word boundary both
// share, and nothing for passes of another window or prompt.
func TestAgreedPrefix(t *testing.T) {
	tok, err := LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTranscriber(nil, tok, 80, slog.New(slog.DiscardHandler))
	ts := tok.TimestampBegin()
	enc := func(s string) []int {
		ids, err := tok.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	// seq is a decode: a start timestamp, the text pieces, an end timestamp
	// after each piece but the last when closed is false.
	seq := func(pieces ...string) []int {
		out := []int{ts}
		for i, p := range pieces {
			out = append(out, enc(p)...)
			out = append(out, ts+50*(i+1))
			if i < len(pieces)-1 {
				out = append(out, ts+50*(i+1))
			}
		}
		return out
	}
	prompt := enc(" Notes.")
	older := seq(" Please send the quarterly report to the finance team.")
	newer := seq(" Please send the quarterly report to the finance team before Friday.")
	text := func(ids []int) string {
		return tok.Decode(slices.DeleteFunc(slices.Clone(ids), func(id int) bool { return id >= ts }))
	}
	for _, tc := range []struct {
		name   string
		held   []Pass
		seek   int
		prompt []int
		want   string // the forced text; "" for none
	}{
		{"two passes, the newer going on: up to the last shared word",
			[]Pass{{0, prompt, older}, {0, prompt, newer}}, 0, prompt, " Please send the quarterly report to the finance"},
		// " quarter" and " quarterly" are two tokens: " the" is forced only
		// when the word after it is agreed too.
		{"the older pass's last word changed in the newer",
			[]Pass{{0, prompt, seq(" Please send the quarter")}, {0, prompt, seq(" Please send the quarterly report.")}}, 0, prompt, " Please send"},
		// Never up to a timestamp: the model must go on with text.
		{"the same decode twice: up to its last word",
			[]Pass{{0, prompt, older}, {0, prompt, older}}, 0, prompt, " Please send the quarterly report to the finance"},
		{"a segment's first word changed: up to its opening timestamp",
			[]Pass{{0, prompt, seq(" Call me back.", " Send the")}, {0, prompt, seq(" Call me back.", " Send them now.")}}, 0, prompt, " Call me back."},
		{"one pass only", []Pass{{0, prompt, newer}}, 0, prompt, ""},
		{"passes of another window", []Pass{{0, prompt, older}, {0, prompt, newer}}, 2900, prompt, ""},
		{"passes after another prompt", []Pass{{0, prompt, older}, {0, prompt, newer}}, 0, enc(" Other."), ""},
		{"no agreement past the first word", []Pass{{0, prompt, seq(" Hello there.")}, {0, prompt, seq(" Yellow fair.")}}, 0, prompt, ""},
		{"the last two of three count",
			[]Pass{{0, prompt, seq(" Call me.")}, {0, prompt, older}, {0, prompt, newer}}, 0, prompt, " Please send the quarterly report to the finance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tr.agreed(tc.held, tc.seek, tc.prompt)
			if tc.want == "" {
				if got != nil {
					t.Fatalf("forced %q, want nothing", tok.Decode(got))
				}
				return
			}
			if text(got) != tc.want {
				t.Fatalf("forced %q, want %q", text(got), tc.want)
			}
			last := tc.held[len(tc.held)-1].Tokens
			if !slices.Equal(got, last[:len(got)]) {
				t.Fatalf("forced %v is not the start of the newer pass %v", got, last)
			}
		})
	}
}
