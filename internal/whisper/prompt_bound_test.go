package whisper

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The text bound keeps what the decoder uses: the tail of a long prompt
// tokenises to the same last tokens as the whole, and the head of a long
// hotword list to the same first tokens.
func TestPromptBoundKeepsUsedTokens(t *testing.T) {
	tok, err := LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	const keep = maxLength/2 - 1
	sentence := " The coffee machine on the second floor is broken again, said Zoë (ÅÄÖ 東京), 3.14159!"
	long := strings.Repeat(sentence, 64<<10/len(sentence))
	whole, err := tok.Encode(long)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := tok.Encode(promptTail(long))
	head, _ := tok.Encode(promptHead(long))
	if len(tail) < keep || len(head) < keep {
		t.Fatalf("bounded text gives %d / %d tokens, fewer than the %d kept", len(tail), len(head), keep)
	}
	for i := range keep {
		if tail[len(tail)-1-i] != whole[len(whole)-1-i] || head[i] != whole[i] {
			t.Fatalf("token %d differs between the bounded and the whole text", i)
		}
	}
}

// A prompt's tokenising costs in proportion to what the decoder keeps: a
// 1 MB one-word prompt once cost minutes of BPE, an invalid-UTF-8 one
// seconds (issue 26 item 5).
func TestHostilePromptsTokeniseQuickly(t *testing.T) {
	tok, err := LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	invalid := bytes.Repeat([]byte{0xff, 0xfe, 0xc3}, 64<<10/3)
	cases := []struct {
		name, text string
	}{
		{"1 MB one-word", strings.Repeat("a", 1<<20)},
		{"64 KB invalid UTF-8", string(invalid)},
		{"64 KB of one invalid byte", strings.Repeat("\x80", 64<<10)},
		{"1 MB of one-letter words", strings.Repeat("a ", 1<<19)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			for _, bounded := range []string{promptTail(" " + tc.text), promptHead(" " + tc.text)} {
				if len(bounded) > maxPromptBytes {
					t.Fatalf("bounded text of %d bytes", len(bounded))
				}
				if _, err := tok.Encode(bounded); err != nil {
					t.Fatal(err)
				}
			}
			took := time.Since(start)
			t.Logf("tokenised in %s", took)
			// Generous, for parallel load: measured 1-5 ms; unbounded, a
			// 64 KB word took 22 s and a 1 MB one far longer.
			if took > time.Second {
				t.Fatalf("tokenising took %s", took)
			}
		})
	}
}

// Encode itself merges an absurdly long word in pieces: a 64 KB word took
// 22 s of BPE, quadratic in its length.
func TestEncodeLongWordQuickly(t *testing.T) {
	tok, err := LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ids, err := tok.Encode(strings.Repeat("a", 64<<10))
	took := time.Since(start)
	t.Logf("64 KB word: %d tokens in %s", len(ids), took)
	if err != nil || len(ids) == 0 || tok.Decode(ids) != strings.Repeat("a", 64<<10) {
		t.Fatalf("64 KB word: %d tokens, %v", len(ids), err)
	}
	if took > 5*time.Second { // generous: measured well under a second
		t.Fatalf("took %s", took)
	}
}

func TestPromptBoundCutsAtWords(t *testing.T) {
	s := strings.Repeat("word ", 4000) // 20000 bytes
	if tail := promptTail(s); len(tail) > maxPromptBytes || !strings.HasPrefix(tail, " word") {
		t.Fatalf("tail of %d bytes starts %q", len(tail), tail[:10])
	}
	if head := promptHead(s); len(head) > maxPromptBytes || !strings.HasSuffix(head, "word") {
		t.Fatalf("head of %d bytes ends %q", len(head), head[len(head)-10:])
	}
	if short := "a few words"; promptTail(short) != short || promptHead(short) != short {
		t.Fatal("a short prompt was changed")
	}
	if got := promptTail(" " + strings.Repeat("a", 1<<20)); got != "" {
		t.Fatalf("a 1 MB word was kept as %d bytes", len(got))
	}
	if got := promptTail(" ok \xff\x80then " + strings.Repeat("x", 1025) + " fine"); got != " ok then fine" {
		t.Fatalf("cleaned prompt %q", got)
	}
	runes := strings.Repeat("é", 10000)
	if !utf8.ValidString(promptTail(runes)) || !utf8.ValidString(promptHead(runes)) {
		t.Fatal("a cut split a character")
	}
}
