package whisper

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

var encodeCases = []struct {
	name    string
	text    string
	special bool // contains special-token strings, which Decode drops
}{
	{name: "ascii", text: "Hello world"},
	{name: "leading space", text: " And so my fellow Americans, ask not what your country can do for you."},
	{name: "punctuation", text: "Wait... what?! (Really) [yes] {no} \"quoted\" -- dash; colon: @home #tag $5 100% a+b=c ~x^y|z_w`q"},
	{name: "numbers", text: "In 2024 there were 1,234,567.89 people and 3.14159 pies; call 555-0100 at 9:30."},
	{name: "contractions", text: "I'm sure they'll say we've done what she'd've liked, isn't it? It's Bob's."},
	{name: "upper contractions", text: "I'M SURE THEY'LL GO, DON'T 'S 'Re"},
	{name: "apostrophes", text: "rock 'n' roll ''quoted'' ' lone '"},
	{name: "multiple spaces", text: "a  b   c    d     e"},
	{name: "trailing spaces", text: "end   "},
	{name: "only spaces", text: "     "},
	{name: "newlines and tabs", text: "line one\nline two\n\n\tindented\r\n  \n x"},
	{name: "accents", text: "Café naïve façade Ærøskøbing São Paulo Zürich crème brûlée"},
	{name: "german", text: "Größere Straßenbahnhaltestelle über Äpfel"},
	{name: "cyrillic", text: "Привет, как дела? Всё хорошо."},
	{name: "greek", text: "Γειά σου Κόσμε"},
	{name: "arabic", text: "مرحبا بالعالم"},
	{name: "hindi", text: "नमस्ते दुनिया"},
	{name: "chinese", text: "你好，世界！我们今天去公园吧。"},
	{name: "japanese", text: "日本語のテキストです。カタカナもある。"},
	{name: "korean", text: "안녕하세요 세계"},
	{name: "emoji", text: "Great job 👍🏽🎉 ❤️ 👨‍👩‍👧"},
	{name: "music symbols", text: "♪ la la ♪♪ ♫ ♬ ♩"},
	{name: "unicode spaces", text: "a\u00a0b\u3000c\u2003d\u0085e \u00a0f"},
	{name: "digits and letters", text: "abc123def ４５６ Ⅻ ½"},
	{name: "symbols", text: "<< >> <<< >>> -( -[ (' (\" (( )) ((( ))) [[ ]] {{ }} 「」『』"},
	{name: "special tokens", text: "<|en|> hello<|endoftext|>world<|0.00|>", special: true},
	{name: "partial special", text: "<|en| <|notatoken|> <|"},
	{name: "long word", text: strings.Repeat("supercalifragilistic", 20)},
}

func loadTestTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type tokenizerRef struct {
	Encode   [][]int  `json:"encode"`
	Decode   []string `json:"decode"`
	Suppress []int    `json:"suppress"`
}

// runTokenizerRef asks the venv's tokenizers and faster_whisper about dir.
func runTokenizerRef(t *testing.T, dir string, encode []string, decode [][]int) tokenizerRef {
	t.Helper()
	py := testenv.Python(t)
	tmp := t.TempDir()
	in, out := filepath.Join(tmp, "in.json"), filepath.Join(tmp, "out.json")
	if decode == nil {
		decode = [][]int{}
	}
	req, err := json.Marshal(map[string]any{"encode": encode, "decode": decode})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, req, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(py, filepath.Join("testdata", "tokenizer_ref.py"), dir, in, out).CombinedOutput(); err != nil {
		t.Fatalf("reference: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var ref tokenizerRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestTokenizerMatchesHF(t *testing.T) {
	dir := testenv.Model(t, "base")
	tok := loadTestTokenizer(t)

	texts := make([]string, len(encodeCases))
	for i, c := range encodeCases {
		texts[i] = c.text
	}
	// Decode cases: every prefix of a multi-byte encoding, so partial UTF-8
	// sequences are replaced exactly as tokenizers does, plus specials.
	emoji, err := tok.Encode(" 👨‍👩‍👧 ♪ 你好 ")
	if err != nil {
		t.Fatal(err)
	}
	var decode [][]int
	for i := 1; i <= len(emoji); i++ {
		decode = append(decode, emoji[:i])
		decode = append(decode, emoji[i-1:])
	}
	decode = append(decode,
		[]int{tok.SOT(), 50259, tok.Transcribe(), 2425, tok.TimestampBegin(), 11, tok.EOT()},
		[]int{},
	)
	ref := runTokenizerRef(t, dir, texts, decode)

	for i, c := range encodeCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := tok.Encode(c.text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, ref.Encode[i]) {
				t.Fatalf("Encode(%q)\n got %v\nwant %v", c.text, got, ref.Encode[i])
			}
			if c.special {
				return
			}
			if back := tok.Decode(got); back != c.text {
				t.Fatalf("Decode(Encode(%q)) = %q", c.text, back)
			}
		})
	}
	t.Run("decode", func(t *testing.T) {
		for i, ids := range decode {
			if got := tok.decodeReplacing(ids); got != ref.Decode[i] {
				t.Errorf("decodeReplacing(%v) = %q, want %q", ids, got, ref.Decode[i])
			}
			// Decode drops what tokenizers shows as U+FFFD (a character cut off).
			if got, want := tok.Decode(ids), strings.ReplaceAll(ref.Decode[i], "\uFFFD", ""); got != want {
				t.Errorf("Decode(%v) = %q, want %q", ids, got, want)
			}
		}
	})
	t.Run("suppress", func(t *testing.T) {
		if got := tok.SuppressTokens(); !slices.Equal(got, ref.Suppress) {
			t.Fatalf("SuppressTokens()\n got %v\nwant %v", got, ref.Suppress)
		}
	})
}

func TestTokenizerSpecialIDs(t *testing.T) {
	tok := loadTestTokenizer(t)
	// engine.md §2, multilingual tiny…large-v2 family.
	tests := []struct {
		name      string
		got, want int
	}{
		{name: "vocab size", got: tok.VocabSize(), want: 51865},
		{name: "eot", got: tok.EOT(), want: 50257},
		{name: "sot", got: tok.SOT(), want: 50258},
		{name: "translate", got: tok.Translate(), want: 50358},
		{name: "transcribe", got: tok.Transcribe(), want: 50359},
		{name: "startoflm", got: tok.SOTLM(), want: 50360},
		{name: "startofprev", got: tok.SOTPrev(), want: 50361},
		{name: "no speech", got: tok.NoSpeech(), want: 50362},
		{name: "notimestamps", got: tok.NoTimestamps(), want: 50363},
		{name: "timestamp begin", got: tok.TimestampBegin(), want: 50364},
		{name: "languages", got: len(tok.Languages()), want: 99},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
	if !tok.Multilingual() {
		t.Error("Multilingual() = false for whisper-base")
	}
	if l := tok.Languages(); l[0] != "en" || l[len(l)-1] != "su" {
		t.Errorf("Languages() = %v…%v, want en…su", l[0], l[len(l)-1])
	}
	if id, ok := tok.LanguageID("de"); !ok || id != 50261 {
		t.Errorf("LanguageID(de) = %d, %v; want 50261, true", id, ok)
	}
	if _, ok := tok.LanguageID("xx"); ok {
		t.Error("LanguageID(xx) found")
	}
	if got, want := tok.SOTSequence("en", "transcribe"), []int{50258, 50259, 50359}; !slices.Equal(got, want) {
		t.Errorf("SOTSequence(en, transcribe) = %v, want %v", got, want)
	}
	if got, want := tok.SOTSequence("fr", "translate"), []int{50258, 50265, 50358}; !slices.Equal(got, want) {
		t.Errorf("SOTSequence(fr, translate) = %v, want %v", got, want)
	}
	for _, c := range []struct {
		id   int
		want bool
	}{{50363, false}, {50364, true}, {51864, true}, {51865, false}, {100, false}} {
		if got := tok.IsTimestamp(c.id); got != c.want {
			t.Errorf("IsTimestamp(%d) = %v", c.id, got)
		}
	}
}

// englishOnlyDir writes a model directory whose vocabulary is whisper-base's
// reshaped into the English-only layout (no "" token, so every special id is
// one lower), without tokenizer.json.
func englishOnlyDir(t *testing.T, base *Tokenizer) string {
	t.Helper()
	vocab := slices.Clone(base.vocab)
	i := slices.Index(vocab, "")
	vocab = slices.Delete(vocab, i, i+1)
	dir := t.TempDir()
	writeVocabJSON(t, dir, vocab)
	return dir
}

func writeVocabJSON(t *testing.T, dir string, vocab []string) {
	t.Helper()
	b, err := json.Marshal(vocab)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vocabulary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTokenizerEnglishOnlyLayout(t *testing.T) {
	base := loadTestTokenizer(t)
	tok, err := LoadTokenizer(englishOnlyDir(t, base))
	if err != nil {
		t.Fatal(err)
	}
	// engine.md §2, English-only family.
	got := []int{tok.VocabSize(), tok.EOT(), tok.SOT(), tok.Translate(), tok.Transcribe(), tok.SOTLM(), tok.SOTPrev(), tok.NoSpeech(), tok.NoTimestamps(), tok.TimestampBegin()}
	want := []int{51864, 50256, 50257, 50357, 50358, 50359, 50360, 50361, 50362, 50363}
	if !slices.Equal(got, want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
	if tok.Multilingual() {
		t.Error("Multilingual() = true without the empty token")
	}
	if l := tok.Languages(); !slices.Equal(l, []string{"en"}) {
		t.Errorf("Languages() = %v, want [en]", l)
	}
	if s := tok.SOTSequence("en", "transcribe"); !slices.Equal(s, []int{50257}) {
		t.Errorf("SOTSequence = %v, want [50257]", s)
	}
}

// Without tokenizer.json, decoding works, Encode names the missing file and
// the suppress list (computed from the vocabulary alone) is unchanged.
func TestTokenizerWithoutTokenizerJSON(t *testing.T) {
	base := loadTestTokenizer(t)
	dir := t.TempDir()
	writeVocabJSON(t, dir, base.vocab)
	tok, err := LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tok.Encode("hello")
	if !errors.Is(err, ErrNoTokenizerJSON) || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Fatalf("Encode error = %v, want ErrNoTokenizerJSON", err)
	}
	ids, err := base.Encode(" Hello there")
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Decode(ids); got != " Hello there" {
		t.Errorf("Decode = %q", got)
	}
	if got, want := tok.SuppressTokens(), base.SuppressTokens(); !slices.Equal(got, want) {
		t.Errorf("SuppressTokens without tokenizer.json\n got %v\nwant %v", got, want)
	}
}

func TestLoadTokenizerErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{name: "empty dir", files: nil, want: "has no vocabulary.json (or vocabulary.txt)"},
		{name: "bad json", files: map[string]string{"vocabulary.json": `["a", `}, want: "is not a JSON array of strings"},
		{name: "not whisper", files: map[string]string{"vocabulary.json": `["a","b"]`}, want: "no <|endoftext|> token"},
		{name: "bad tokenizer.json", files: map[string]string{
			"vocabulary.txt": "a\n<|endoftext|>\n<|startoftranscript|>\n<|en|>\n<|translate|>\n<|transcribe|>\n<|startoflm|>\n<|startofprev|>\n<|nocaptions|>\n<|notimestamps|>\n<|0.00|>\n",
			"tokenizer.json": `{"model": {"type": "Unigram"}}`,
		}, want: "not BPE"},
		// 2 MB of brackets; 30 MB once overflowed the stack and crashed.
		{name: "deep tokenizer.json", files: map[string]string{
			"vocabulary.txt": "a\n<|endoftext|>\n<|startoftranscript|>\n<|en|>\n<|translate|>\n<|transcribe|>\n<|startoflm|>\n<|startofprev|>\n<|nocaptions|>\n<|notimestamps|>\n<|0.00|>\n",
			"tokenizer.json": `{"x": ` + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20) + `}`,
		}, want: "nested more than 64 deep: the model's tokenizer.json is damaged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadTokenizer(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadTokenizer error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestVocabularyTxt(t *testing.T) {
	specials := "<|endoftext|>\n<|startoftranscript|>\n<|en|>\n<|de|>\n<|translate|>\n<|transcribe|>\n<|startoflm|>\n<|startofprev|>\n<|nocaptions|>\n<|notimestamps|>\n<|0.00|>\n<|0.02|>\n"
	tests := []struct {
		name  string
		body  string
		multi bool
	}{
		{name: "lf multilingual", body: "a\nb\n\n" + specials, multi: true},
		{name: "crlf english-only", body: strings.ReplaceAll("a\nb\n"+specials, "\n", "\r\n"), multi: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "vocabulary.txt"), []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			tok, err := LoadTokenizer(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tok.Multilingual() != tc.multi {
				t.Errorf("Multilingual() = %v", tok.Multilingual())
			}
			off := 0
			if tc.multi {
				off = 1
			}
			if tok.EOT() != 2+off || tok.TimestampBegin() != 12+off || tok.VocabSize() != 14+off {
				t.Errorf("EOT %d TimestampBegin %d VocabSize %d", tok.EOT(), tok.TimestampBegin(), tok.VocabSize())
			}
			if got := tok.Decode([]int{0, 1, tok.EOT(), 0}); got != "aba" {
				t.Errorf("Decode = %q, want aba", got)
			}
		})
	}
}

// LoadTokenizer's parsing goroutine ends before it returns, on success and
// on failure.
func TestLoadTokenizerNoLeak(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	loadTestTokenizer(t)
	if _, err := LoadTokenizer(t.TempDir()); err == nil {
		t.Fatal("LoadTokenizer of an empty directory succeeded")
	}
}

func BenchmarkLoadTokenizer(b *testing.B) {
	dir := testenv.Model(b, "base")
	for b.Loop() {
		if _, err := LoadTokenizer(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	tok := loadTestTokenizer(b)
	text := " And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
	for b.Loop() {
		if _, err := tok.Encode(text); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTokenizerSyntheticBPE covers tokenizer.json layouts that whisper-base
// does not have: merges as "a b" strings, merged ids not at 256+rank, a token
// made by two merges, \u escapes, and a BPE vocab that disagrees with
// vocabulary.txt. The reference is Hugging Face tokenizers on the same files.
func TestTokenizerSyntheticBPE(t *testing.T) {
	var vocab []string
	for b := range 256 {
		vocab = append(vocab, string(byteToRune[b]))
	}
	vocab = append(vocab, "zzz_unused")
	merges := []string{"Ġ t", "h e", "Ġt he", "b c", "a b", "ab c", "a bc", "Ġ a", "Ġa bc"}
	for _, m := range merges {
		joined := strings.Replace(m, " ", "", 1)
		if !slices.Contains(vocab, joined) {
			vocab = append(vocab, joined)
		}
	}
	specials := []string{"<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|translate|>", "<|transcribe|>",
		"<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>", "<|0.00|>", "<|0.02|>"}
	bpeVocab := map[string]int{}
	for i, tok := range vocab {
		bpeVocab[tok] = i
	}
	var added []map[string]any
	for i, s := range specials {
		added = append(added, map[string]any{"id": len(vocab) + i, "content": s, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	byteLevel := map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}
	file := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added, "normalizer": nil,
		"pre_tokenizer": byteLevel, "post_processor": nil, "decoder": byteLevel,
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
			"vocab": bpeVocab, "merges": merges},
	}
	b, err := json.Marshal(file) // escapes < and > as \u003c, \u003e
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ct2 := slices.Clone(vocab)
	ct2[256] = "zzz_other" // disagrees with tokenizer.json
	ct2 = append(ct2, specials...)
	if err := os.WriteFile(filepath.Join(dir, "vocabulary.txt"), []byte(strings.Join(ct2, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tok, err := LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tok.enc.vocab == tok.ids || tok.enc.extra == nil {
		t.Fatal("the synthetic files should need their own index and a second-merge entry")
	}
	texts := []string{"the abc", " the thee abc ab", "abcabc", "a b c abab", " the<|endoftext|>abc", "xyz ♪"}
	ref := runTokenizerRef(t, dir, texts, nil)
	for i, text := range texts {
		got, err := tok.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ref.Encode[i]) {
			t.Errorf("Encode(%q) = %v, want %v", text, got, ref.Encode[i])
		}
	}
	if got := tok.SuppressTokens(); !slices.Equal(got, ref.Suppress) {
		t.Errorf("SuppressTokens() = %v, want %v", got, ref.Suppress)
	}
}

// Token sequences that end (or start) inside a character decode to the
// complete characters only, never U+FFFD; a real U+FFFD in the text stays.
func TestDecodeDropsIncompleteUTF8(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"cut after the first byte of 你", []byte("ok \xe4"), "ok "},
		{"cut after two bytes of 👍", []byte("hi \xf0\x9f"), "hi "},
		{"starts with continuation bytes", []byte("\x91\x8d fox"), " fox"},
		{"invalid in the middle", []byte("a\xffb"), "ab"},
		{"a real replacement character stays", []byte("x\xef\xbf\xbdy"), "x\uFFFDy"},
		{"valid text unchanged", []byte("Café 你好"), "Café 你好"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := dropInvalidUTF8(tc.in); got != tc.want {
				t.Fatalf("dropInvalidUTF8(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	t.Run("real tokens", func(t *testing.T) {
		tok := loadTestTokenizer(t)
		ids, err := tok.Encode(" 你好")
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= len(ids); i++ {
			if got := tok.Decode(ids[:i]); strings.ContainsRune(got, utf8.RuneError) {
				t.Fatalf("Decode(%v) = %q contains U+FFFD", ids[:i], got)
			}
		}
	})
}
