package whisper

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// compressionTexts are texts like a window's decode: sentences, phrases
// looping as Whisper loops, other scripts, and odd sizes around zlib's
// limits (a 258-byte match, 4 KiB for a far 3-byte match, 16383 symbols a
// block, the 32 KiB window).
func compressionTexts() []string {
	words := strings.Fields("the quick brown fox jumps over lazy dog and you always want to see it in superlative degree " +
		"hello I didn't know were there okay then thought heard a beep this is Diane New Jersey Sheila Texas Chicago " +
		"thank you. yes, no! what? 3 o'clock milk bread eggs über café naïve 東京 你好 привет मेरा")
	rng := rand.New(rand.NewPCG(34, 7))
	phrase := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	texts := []string{"a", "ab", "abc", "aaaa", strings.Repeat("a", 258), strings.Repeat("a", 259), strings.Repeat("ab", 3000),
		"The quick brown fox jumps over the lazy dog.", strings.Repeat(" Thank you.", 40)}
	for range 600 {
		texts = append(texts, phrase(1+rng.IntN(80)))
	}
	for range 600 { // loops: a phrase said again and again, then something else
		p := phrase(1 + rng.IntN(8))
		texts = append(texts, phrase(rng.IntN(10))+strings.Repeat(" "+p, 1+rng.IntN(30))+" "+phrase(rng.IntN(10)))
	}
	for _, n := range []int{4000, 4097, 9000, 17000, 33000, 60000} { // long: far matches, several blocks
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(phrase(1+rng.IntN(20)) + ". ")
		}
		texts = append(texts, b.String())
	}
	var bin []byte // every byte value, as few words have
	for i := range 20000 {
		bin = append(bin, byte(rng.IntN(256)), byte(i))
	}
	return append(texts, strings.ToValidUTF8(string(bin), "?"))
}

// zlibSize is Python's len(zlib.compress(text)): checked against Python
// itself on texts Whisper writes and on zlib's corner cases.
func TestZlibSizeMatchesPython(t *testing.T) {
	py := testenv.Python(t)
	texts := compressionTexts()
	b, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "texts.json")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join("testdata", "zlib_ref.py"), in).Output()
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	want := strings.Fields(string(out))
	if len(want) != len(texts) {
		t.Fatalf("reference gave %d sizes for %d texts", len(want), len(texts))
	}
	var goDiffers int
	for i, text := range texts {
		w, _ := strconv.Atoi(want[i])
		if got := zlibSize([]byte(text)); got != w {
			t.Errorf("text %d (%d bytes, %.40q…): %d bytes, Python's zlib %d", i, len(text), text, got, w)
		}
		var buf bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&buf, 6)
		_, _ = zw.Write([]byte(text))
		_ = zw.Close()
		if buf.Len() != w {
			goDiffers++
		}
	}
	t.Logf("%d texts; Go's compress/zlib differs from Python's on %d", len(texts), goDiffers)
}

// Sizes Python 3.11's zlib 1.2.13 gives, for machines without the venv.
func TestZlibSizeKnown(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 8},
		{"a", 9},
		{"The quick brown fox jumps over the lazy dog.", 51},
		{strings.Repeat(" Thank you.", 40), 24},
		{" The quick brown fox jump over the lazy dog." + strings.Repeat(" the quick brown fox jump over the lazy dog,", 12), 61},
	} {
		if got := zlibSize([]byte(c.text)); got != c.want {
			t.Errorf("zlibSize(%.30q…) = %d, want %d", c.text, got, c.want)
		}
	}
}
