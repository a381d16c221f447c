package textproc_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/tabletest"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

// sanitizeCase is one text a sanitizer is given, and what it should make of it.
type sanitizeCase struct{ name, in, want string }

// checkSanitizer checks what f makes of each case, and that f changes nothing
// in what it returned.
func checkSanitizer(t *testing.T, name string, f func(string) string, cases []sanitizeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := f(tc.in)
			if got != tc.want {
				t.Errorf("%s(%q) = %q, want %q", name, tc.in, got, tc.want)
			}
			if again := f(got); again != got {
				t.Errorf("not idempotent: %s(%q) = %q", name, got, again)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	cases := []sanitizeCase{
		{"plain", " Hello, world.", " Hello, world."},
		{"empty", "", ""},
		{"colour CSI", "\x1b[31mred\x1b[0m text", "red text"},
		{"cursor and erase", "ok\x1b[2K\x1b[1A\x1b[?25l done", "ok done"},
		{"OSC title ended by BEL", "\x1b]0;pwned\aHello", "Hello"},
		{"OSC title ended by ST", "\x1b]2;pwned\x1b\\Hello", "Hello"},
		{"OSC 52 clipboard write", "Hi\x1b]52;c;ZWNobyBwd25lZA==\a there", "Hi there"},
		{"unterminated OSC swallows the rest", "Hello \x1b]0;title", "Hello "},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"two-byte escape", "reset\x1bc now", "reset now"},
		{"charset escape", "x\x1b(By", "xy"},
		{"lone ESC at the end", "end\x1b", "end"},
		{"ESC before a letter outside the final range", "a\x1b\u00e9b", "a\u00e9b"},
		{"C1 CSI", "\u009b31mred", "red"},
		{"C1 OSC ended by C1 ST", "\u009d0;t\u009cok", "ok"},
		{"C1 OSC ended by BEL", "\u009d0;t\aok", "ok"},
		{"other C1", "a\u0084b\u0088c", "abc"},
		{"BEL, NUL, backspace, DEL", "be\a\x00l\bl\x7f", "bell"},
		{"CR in the middle", "rm -rf x\rls", "rm -rf x ls"},
		{"Enter at the end", "make install\r\n", "make install"},
		{"line breaks between words", "first\nsecond\r\nthird", "first second third"},
		{"breaks beside spaces", "one \n two\n three", "one two three"},
		{"break at the start", "\n\tHello", "Hello"},
		{"segment's leading space kept", "\n Hello", " Hello"},
		{"tab", "a\tb", "a b"},
		{"VT, FF, NEL", "a\vb\fc\u0085d", "a b c d"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a b c"},
		{"RLO", "invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"all embeddings and overrides", "\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee", "abcde"},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", "abc"},
		{"zero-width space and word joiner", "pass\u200Bword\u2060s", "passwords"},
		{"BOM", "\uFEFFHello", "Hello"},
		{"soft hyphen", "dicta\u00ADtion", "dictation"},
		{"tag characters", "hi\U000E0001\U000E0069\U000E0067\U000E006E\U000E007F", "hi"},
		{"invalid UTF-8", "caf\xc3 ok\xff", "caf ok"},
		{"ZWNJ kept (Persian)", "می\u200cخواهم", "می\u200cخواهم"},
		{"ZWJ kept (emoji)", "👩\u200d💻", "👩\u200d💻"},
		{"direction marks kept", "\u05e9\u05dc\u05d5\u05dd\u200f!\u200e \u061c", "\u05e9\u05dc\u05d5\u05dd\u200f!\u200e \u061c"},
		{"non-breaking and wide spaces kept", "10\u00a0km\u3000x", "10\u00a0km\u3000x"},
		{"accents and scripts kept", " Ça va? 你好. Привет!", " Ça va? 你好. Привет!"},
	}
	checkSanitizer(t, "Sanitize", textproc.Sanitize, cases)
}

// TestSanitizeLeavesNoControl runs every code point of the planes text
// comes from through Sanitize, alone and between words: none of C0, C1,
// DEL or a format character outside the kept five survives, and nothing
// else is touched.
func TestSanitizeLeavesNoControl(t *testing.T) {
	kept := map[rune]bool{'\u200c': true, '\u200d': true, '\u200e': true, '\u200f': true, '\u061c': true}
	for r := rune(0); r <= 0x10ffff; r++ {
		if r >= 0x30000 && r < 0xe0000 || r >= 0xd800 && r < 0xe000 {
			continue // unassigned planes, surrogates
		}
		in := "a" + string(r) + "b"
		got := textproc.Sanitize(in)
		bad := unicode.IsControl(r) || unicode.Is(unicode.Cf, r) && !kept[r] || r == '\u2028' || r == '\u2029'
		// An escape introducer may take the "b" along as its final byte.
		if bad && got != "ab" && got != "a b" && got != "a" || !bad && got != in {
			t.Errorf("%U: Sanitize(%q) = %q", r, in, got)
		}
	}
}

// TestApplySanitizesFirst: the text settings see sanitized text. Line
// feeds stay: the engines' text has none by then (Sanitize took them), and
// an AI rewrite's list keeps its lines; the settings' own line breaks (spoken
// "new line", a replacement's "\n") are written after.
func TestApplySanitizesFirst(t *testing.T) {
	cases := []struct {
		name string
		o    textproc.Options
		in   string
		want string
	}{
		{"no settings", textproc.Options{}, "ls\x1b]0;x\a -la\r", "ls -la"},
		{"a list's lines kept, CR-LF as one", textproc.Options{}, "Buy:\r\n- milk\n- eggs\u202e", "Buy:\n- milk\n- eggs"},
		{"a lone CR is no line break", textproc.Options{}, "one\rtwo", "one two"},
		{"spoken new line", textproc.Options{SpokenPunctuation: true},
			textproc.Sanitize("first\rline new line second\u202E line\r\n"), "first line\nSecond line"},
		{"replacement writes a line break", textproc.Options{Replacements: []textproc.Replacement{{From: "next item", To: "\n- "}}},
			textproc.Sanitize("milk\vnext item eggs"), "milk\n- eggs"},
		{"a replacement matches across a stripped override", textproc.Options{Replacements: []textproc.Replacement{{From: "invoice", To: "bill"}}},
			"invo\u202Eice", "bill"},
		{"final period after a stripped break", textproc.Options{StripFinalPeriod: true}, textproc.Sanitize("One sentence.\r\n"), "One sentence"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := textproc.New(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Apply(tc.in)
			if got != tc.want {
				t.Errorf("Apply(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if strings.ContainsAny(got, "\r\x1b\a\u202e") {
				t.Error("a control survived")
			}
		})
	}
}

// TestSanitizeLines is the step at the output (output.Paster): what
// Sanitize strips is stripped, and only a line feed (a CR-LF as one) stays
// a line break; a lone CR, a tab and the Unicode separators do not.
func TestSanitizeLines(t *testing.T) {
	cases := []sanitizeCase{
		{"plain", "Hello, world.", "Hello, world."},
		{"empty", "", ""},
		{"a dictated line break", "Dear Sam,\nthanks.", "Dear Sam,\nthanks."},
		{"a paragraph", "One.\n\nTwo.", "One.\n\nTwo."},
		{"a list", "- eggs\n- milk", "- eggs\n- milk"},
		{"CR-LF is one line feed", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"a lone CR is a space", "rm -rf x\rls", "rm -rf x ls"},
		{"a CR before the end", "make install\r", "make install"},
		{"tab", "a\tb", "a b"},
		{"VT, FF, NEL, separators", "a\vb\fc\u0085d\u2028e\u2029f", "a b c d e f"},
		{"window title by OSC and BEL", "\x1b]0;pwned\aHello", "Hello"},
		{"screen cleared", "Hello\x1b[2J\x1b[H there", "Hello there"},
		{"C1 CSI and OSC", "\u009b2Jx\u009d0;t\u009cy", "xy"},
		{"BEL, NUL, DEL, backspace", "be\a\x00l\bl\x7f", "bell"},
		{"C1 controls", "a\u0080b\u0084c\u0099d", "abcd"},
		{"bidi overrides", "\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee", "abcde"},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", "abc"},
		{"zero-width space, word joiner, BOM", "pass\u200Bword\u2060s\uFEFF", "passwords"},
		{"ZWNJ and ZWJ kept", "می\u200cخواهم 👩\u200d💻", "می\u200cخواهم 👩\u200d💻"},
		{"scripts and emoji kept", "Ça va? 你好。Привет! Καλημέρα 🎉 שלום", "Ça va? 你好。Привет! Καλημέρα 🎉 שלום"},
		{"line breaks around controls", "a\x1b[31m\nb\a\n", "a\nb\n"},
	}
	checkSanitizer(t, "SanitizeLines", textproc.SanitizeLines, cases)
}

func TestDictatedBreaks(t *testing.T) {
	tabletest.Check(t, "DictatedBreaks", textproc.DictatedBreaks, []tabletest.Case[string, int]{
		{In: "go forward ten meters", Want: 0},
		{In: "dear Sam new line thanks", Want: 1},
		{In: "dear Sam, New Line. thanks newline bye", Want: 2},
		{In: "intro new paragraph body", Want: 2},
		{In: "one\ntwo\r\nthree", Want: 2},
		{In: "the new lines of code", Want: 0},
		{In: "a new linen shirt", Want: 0},
	})
}

// BenchmarkSanitizeLines is the output step's cost per text: a plain
// dictation (the common case, no copy) and a hostile one of the same size.
func BenchmarkSanitizeLines(b *testing.B) {
	plain := strings.Repeat("The coffee machine on the second floor is broken again.\n", 8)
	hostile := strings.Repeat("\x1b]0;pwned\aThe coffee\u200b machine\u202e on the\r second floor\x1b[2J is broken again.\r\n", 8)
	for _, tc := range []struct{ name, text string }{{"plain", plain}, {"hostile", hostile}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				textproc.SanitizeLines(tc.text)
			}
		})
	}
}
