package textproc_test

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/textproc"
)

func apply(t *testing.T, o textproc.Options, in string) string {
	t.Helper()
	p, err := textproc.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p.Apply(in)
}

func TestSpokenPunctuation(t *testing.T) {
	on := textproc.Options{SpokenPunctuation: true}
	cases := []struct{ in, want string }{
		{"first line new line second line", "first line\nSecond line"},
		{"First line, new line, second line.", "First line\nSecond line."},
		{"First line. New line. Second line.", "First line\nSecond line."},
		{"Dear Anna comma new paragraph thanks for the notes period", "Dear Anna,\n\nThanks for the notes."},
		{"Hello comma how are you question mark", "Hello, how are you?"},
		{"Hello, comma, how are you? Question mark.", "Hello, how are you?"},
		{"that is great exclamation mark see you soon full stop", "that is great! See you soon."},
		{"wow exclamation point", "wow!"},
		{"He said open quote hello close quote and left period", `He said "hello" and left.`},
		{"He said, open quote, hello, end quote.", `He said "hello"`},
		{"Note colon bring snacks", "Note: bring snacks"},
		{"Is it done? New line. Yes.", "Is it done?\nYes."},
		{"She said, open quote, really? Close quote.", `She said "really?"`},
		{"Really? Question mark.", "Really?"},
		{"New Line starts it", "\nStarts it"},
		{"one newline two", "one\nTwo"},
		{"Nothing to do here.", "Nothing to do here."},
		{"a periodical commander", "a periodical commander"}, // only whole words
		{"", ""},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			if got := apply(t, on, tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := apply(t, textproc.Options{}, "first line new line second line"); got != "first line new line second line" {
		t.Errorf("spoken punctuation off changed the text: %q", got)
	}
}

func TestReplacements(t *testing.T) {
	r := func(pairs ...string) []textproc.Replacement {
		var out []textproc.Replacement
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, textproc.Replacement{From: pairs[i], To: pairs[i+1]})
		}
		return out
	}
	cases := []struct {
		name string
		repl []textproc.Replacement
		in   string
		want string
	}{
		{"case-insensitive", r("comfy ui", "ComfyUI"), "I use Comfy UI and comfy  ui daily", "I use ComfyUI and ComfyUI daily"},
		{"whole words only", r("cat", "dog"), "cat concatenate Cat, bobcat cat.", "dog concatenate dog, bobcat dog."},
		{"in order: second sees the first's result", r("k eight s", "k8s", "k8s", "Kubernetes"), "deploy on k eight s", "deploy on Kubernetes"},
		{"in order: earlier wins", r("new york", "NYC", "york", "Yorkshire"), "New York and York", "NYC and Yorkshire"},
		{"newline in to", r("sign off", "\nBest,\nAnna"), "Thanks for everything. sign off", "Thanks for everything.\nBest,\nAnna"},
		{"newline at end of to", r("next item", "\n- "), "milk next item eggs", "milk\n- eggs"},
		{"regexp characters are literal", r("c++", "C plus plus", "a.b", "x"), "I like c++ and a.b not axb", "I like C plus plus and x not axb"},
		{"non-ASCII boundaries", r("café", "coffee shop"), "the Café and cafés", "the coffee shop and cafés"},
		{"to may be empty", r("um", ""), "so um yes", "so  yes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := apply(t, textproc.Options{Replacements: tc.repl}, tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOutputStyle(t *testing.T) {
	cases := []struct {
		name string
		opt  textproc.Options
		in   string
		want string
	}{
		{"defaults change nothing", textproc.Options{}, "Hello there.", "Hello there."},
		{"trailing space", textproc.Options{TrailingSpace: true}, "Hello there.", "Hello there. "},
		{"trailing space once", textproc.Options{TrailingSpace: true}, "Hello there. ", "Hello there. "},
		{"trailing space not on empty", textproc.Options{TrailingSpace: true}, "", ""},
		{"strip final period", textproc.Options{StripFinalPeriod: true}, "Sounds good to me.", "Sounds good to me"},
		{"keep period of two sentences", textproc.Options{StripFinalPeriod: true}, "Sounds good. See you then.", "Sounds good. See you then."},
		{"keep question mark", textproc.Options{StripFinalPeriod: true}, "Are you there?", "Are you there?"},
		{"keep ellipsis", textproc.Options{StripFinalPeriod: true}, "Well...", "Well..."},
		{"keep on two lines", textproc.Options{StripFinalPeriod: true}, "Milk\nEggs.", "Milk\nEggs."},
		{"decimal is one sentence", textproc.Options{StripFinalPeriod: true}, "It costs 3.50 dollars.", "It costs 3.50 dollars"},
		{"strip then trailing space", textproc.Options{StripFinalPeriod: true, TrailingSpace: true}, "OK then.", "OK then "},
		{"lower", textproc.Options{Case: textproc.CaseLower}, "Meet Anna in Paris.", "meet anna in paris."},
		{"as spoken", textproc.Options{Case: textproc.CaseAsSpoken}, "Meet Anna.", "Meet Anna."},
		{"replacement keeps its capitals under lower", textproc.Options{Case: textproc.CaseLower,
			Replacements: []textproc.Replacement{{From: "whisper key", To: "WhisperKey"}}}, "I use Whisper Key.", "i use WhisperKey."},
		{"all together", textproc.Options{SpokenPunctuation: true, Case: textproc.CaseLower, StripFinalPeriod: true, TrailingSpace: true,
			Replacements: []textproc.Replacement{{From: "lol", To: "😂"}}}, "That is funny comma lol period", "that is funny, 😂 "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := apply(t, tc.opt, tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	cases := []struct {
		name string
		opt  textproc.Options
		want string
	}{
		{"empty from", textproc.Options{Replacements: []textproc.Replacement{{From: "a", To: "b"}, {From: "  ", To: "x"}}}, "replacement 2"},
		{"unknown case", textproc.Options{Case: "upper"}, `case "upper"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := textproc.New(tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line containing %q", err, tc.want)
			}
		})
	}
}
