package whisper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenizerFiles loads arbitrary vocabulary.json and tokenizer.json:
// LoadTokenizer never panics, and a tokenizer it accepts decodes any ids to
// valid UTF-8 and encodes text without failing.
func FuzzTokenizerFiles(f *testing.F) {
	specials := `"<|endoftext|>","<|startoftranscript|>","<|en|>","<|translate|>","<|transcribe|>","<|startoflm|>","<|startofprev|>","<|nocaptions|>","<|notimestamps|>","<|0.00|>"`
	f.Add([]byte(`["a","b",`+specials+`]`), []byte(``))
	f.Add([]byte(`["a","b","ab",`+specials+`]`),
		[]byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"added_tokens":[{"id":3,"content":"<|endoftext|>"}]}`))
	f.Add([]byte(`["\u0120t","\\u00e9",`+specials+`]`), []byte(`{"model":{"type":"BPE","vocab":{},"merges":[["a","b"]]}}`))
	f.Fuzz(func(t *testing.T, vocab, tokenizer []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "vocabulary.json"), vocab, 0o644); err != nil {
			t.Fatal(err)
		}
		if len(tokenizer) > 0 {
			if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), tokenizer, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tok, err := LoadTokenizer(dir)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		ids := make([]int, 0, tok.VocabSize()+2)
		for id := -1; id <= tok.VocabSize(); id++ {
			ids = append(ids, id)
		}
		if s := tok.Decode(ids); !utf8.ValidString(s) {
			t.Fatalf("Decode gave invalid UTF-8 %q", s)
		}
		if tok.enc != nil {
			if _, err := tok.Encode("ab a, b ♪ 你"); err != nil {
				t.Fatalf("Encode: %v", err)
			}
		}
	})
}
