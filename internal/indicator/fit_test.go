package indicator

import (
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
)

// goMeasure measures with the Go font at 13 px times scale, as the Wayland
// indicator draws it at that display scale.
func goMeasure(t *testing.T, scale float64) func(string) int {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 13 * scale, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	return func(s string) int { return font.MeasureString(face, s).Ceil() }
}

// Live text keeps its newest whole words and fits the room it is given,
// for the widths beside the bar and the display scales of each backend.
func TestTail(t *testing.T) {
	const long = "The quarterly report is due on Friday afternoon. Let us meet in the small conference room at ten."
	cases := []struct {
		name  string
		text  string
		width int     // at scale 1
		scale float64 // the display's
		want  string  // "" checks only the properties
	}{
		{"short text is whole", "  Short   text. ", 150, 1, "Short text."},
		{"long text keeps its end", long, 150, 1, "…room at ten."},
		{"wider, more words", long, 200, 1, "…small conference room at ten."},
		{"narrow", long, 94, 1, "…room at ten."},
		{"scale 1.5", long, 150, 1.5, ""},
		{"scale 2", long, 150, 2, ""},
		{"scale 2, narrow", long, 94, 2, ""},
		{"a word wider than the space keeps its end", "Supercalifragilisticexpialidocious", 60, 1, ""},
		{"no room", long, 4, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			measure := goMeasure(t, tc.scale)
			w := int(float64(tc.width) * tc.scale)
			got := tail(measure, tc.text, w)
			if tc.want != "" && got != tc.want {
				t.Errorf("tail = %q, want %q", got, tc.want)
			}
			if measure(got) > w {
				t.Errorf("tail = %q is %d px wide, more than %d", got, measure(got), w)
			}
			words := strings.Fields(tc.text)
			body, cut := strings.CutPrefix(got, "…")
			switch {
			case got == "":
				if measure("…") <= w {
					t.Errorf("nothing shown though %d px has room for an ellipsis", w)
				}
			case !cut:
				if body != strings.Join(words, " ") {
					t.Errorf("tail = %q without an ellipsis, but not the whole text", got)
				}
			case len(words) == 1 || !strings.Contains(body, " ") && measure("…"+words[len(words)-1]) > w:
				if !strings.HasSuffix(words[len(words)-1], body) {
					t.Errorf("tail = %q: not the end of the last word", got)
				}
			default:
				if !strings.HasSuffix(strings.Join(words, " "), " "+body) {
					t.Errorf("tail = %q: not the newest whole words of %q", got, tc.text)
				}
				// Greedy: one more word would not have fitted.
				n := len(strings.Fields(body))
				if n < len(words) {
					if more := "…" + strings.Join(words[len(words)-n-1:], " "); measure(more) <= w {
						t.Errorf("tail = %q, but %q fits too", got, more)
					}
				}
			}
			t.Logf("%d px: %q", w, got)
		})
	}
}

// A profile's name keeps its start.
func TestHead(t *testing.T) {
	measure := goMeasure(t, 1)
	for _, tc := range []struct {
		s     string
		width int
		want  string
	}{
		{"terminal", 94, "terminal"},
		{"a-very-long-profile-name", 94, ""},
	} {
		got := head(measure, tc.s, tc.width)
		if tc.want != "" && got != tc.want {
			t.Errorf("head(%q) = %q, want %q", tc.s, got, tc.want)
		}
		if measure(got) > tc.width || !strings.HasPrefix(tc.s, strings.TrimSuffix(got, "…")) {
			t.Errorf("head(%q, %d) = %q (%d px): not the start, or too wide", tc.s, tc.width, got, measure(got))
		}
	}
}
