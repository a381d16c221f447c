package e2e

import (
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// The X11 indicator's text: the core "fixed" font, 6 pixels a character,
// drawn solid in the label colour and ending 14 pixels from the right edge
// (internal/indicator's layout).
const (
	glyphW     = 6
	labelRight = indicator.Width - 14
	labelLeft  = 12 + 14 + 12
	textColour = 0xf1f3f4
	trackColor = 0x3c4043
	barColour  = 0x34a853
)

// glyphs reads the X11 indicator's label back from a screenshot: each
// character's cell, as the indicator itself draws it on this display.
type glyphs map[string]rune

// learnGlyphs shows every character the speech can bring on an indicator
// of the test's own and keeps each one's cell.
func learnGlyphs(t *testing.T) glyphs {
	t.Helper()
	var ind *indicator.Indicator
	var err error
	for range 3 { // a fresh display may refuse the very first connection
		if ind, err = indicator.New(indicator.Config{Placement: choice.Bottom}, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Close()
	g := glyphs{}
	for _, chunk := range []string{"abcdefghijklmnopqrst", "uvwxyzABCDEFGHIJKLMN", "OPQRSTUVWXYZ01234567", `89.,'?!-:;"`} {
		ind.Show(indicator.Recording, "")
		ind.Live(chunk)
		shot := testenv.Screenshot(t)
		r := ind.Bounds()
		x0 := r.X + labelRight - glyphW*len(chunk)
		for i, c := range chunk {
			cell := cellMask(shot, x0+glyphW*i, r.Y)
			if old, dup := g[cell]; dup {
				t.Fatalf("%q and %q draw alike: the indicator's font is not the 6-pixel fixed font this test reads", old, c)
			}
			g[cell] = c
		}
	}
	g[cellMask(image.NewRGBA(image.Rect(0, 0, glyphW, indicator.Height)), 0, 0)] = ' '
	return g
}

// cellMask is the label-coloured pixels of the cell at (x, y), as a key.
func cellMask(img *image.RGBA, x, y int) string {
	var b strings.Builder
	for j := range indicator.Height {
		for i := range glyphW {
			if c := img.RGBAAt(x+i, y+j); uint32(c.R)<<16|uint32(c.G)<<8|uint32(c.B) == textColour {
				b.WriteByte('#')
			} else {
				b.WriteByte('.')
			}
		}
	}
	return b.String()
}

// read is the label beside the level bar of the indicator at (x, y), read
// from its right edge to the bar; '?' for a glyph it does not know.
func (g glyphs) read(img *image.RGBA, x, y int) string {
	var rs []rune
	for right := x + labelRight; right-glyphW >= x+labelLeft; right -= glyphW {
		if n, _ := testenv.PixelsOf(img.SubImage(image.Rect(right-glyphW, y, right, y+indicator.Height)).(*image.RGBA), trackColor); n > 0 {
			break // the bar
		}
		if n, _ := testenv.PixelsOf(img.SubImage(image.Rect(right-glyphW, y, right, y+indicator.Height)).(*image.RGBA), barColour); n > 0 {
			break
		}
		c, ok := g[cellMask(img, right-glyphW, y)]
		if !ok {
			c = '?'
		}
		rs = append(rs, c)
	}
	slices.Reverse(rs)
	return strings.TrimSpace(string(rs))
}

// plainWords is s in lower case, its words without punctuation.
func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// Issue #51: through a long hold with pauses, the indicator shows the
// newest words heard, whole, fitted to its space, each pause's newer than
// the last.
func TestLiveTextFollowsTheHold(t *testing.T) {
	desktopSession(t)
	g := learnGlyphs(t)
	wav, said := longSpeech(t, moreSentences, 18, 0.7)
	a, _ := launchApp(t, "model: "+testenv.Model(t, "base")+"\nlanguage: en\nhotkeys:\n  record: ctrl+shift+f9\n  cancel: esc\n", "WHISPERKEY_LOG_FORMAT=json")
	a.waitStatus(t, "ready", 90*time.Second)
	tg := openTarget(t)
	tg.clear(t)
	before := len(records(a.log, "dictated"))
	red := indicator.DotColour(indicator.Recording)

	type reading struct {
		at   time.Duration
		text string
		shot *image.RGBA
		box  image.Rectangle
	}
	var seen []reading
	look := func(start time.Time) {
		shot := testenv.Screenshot(t)
		n, box := testenv.PixelsOf(shot, red) // the stripe and the dot: the window's top left
		if n == 0 {
			return
		}
		text := g.read(shot, box.Min.X, box.Min.Y)
		if text != "" && (len(seen) == 0 || seen[len(seen)-1].text != text) {
			seen = append(seen, reading{time.Since(start), text, shot, image.Rect(box.Min.X, box.Min.Y, box.Min.X+indicator.Width, box.Min.Y+indicator.Height)})
		}
	}
	xdo(t, "keydown", "ctrl+shift+F9")
	start := time.Now()
	time.Sleep(300 * time.Millisecond)
	spoken := make(chan struct{})
	go func() { defer close(spoken); say(t, wav) }()
	for done := false; !done; {
		select {
		case <-spoken:
			done = true
		case <-time.After(1500 * time.Millisecond):
			look(start)
		}
	}
	for range 3 { // the last phrase's transcription, the key still held
		time.Sleep(1500 * time.Millisecond)
		look(start)
	}
	xdo(t, "keyup", "ctrl+shift+F9")
	held := time.Since(start)

	saidWords := plainWords(said)
	pos := -1
	for _, r := range seen {
		t.Logf("%5.1f s: %q", r.at.Seconds(), r.text)
		body, cut := strings.CutPrefix(r.text, "...")
		words := plainWords(body)
		if len(words) == 0 {
			t.Errorf("%q: no words", r.text)
			continue
		}
		// Whole words: the first is one that was said (not "quart").
		if cut && !slices.Contains(saidWords, words[0]) && !unicode.IsDigit(rune(words[0][0])) {
			t.Errorf("%q: %q is no word that was said: cut inside a word", r.text, words[0])
		}
		// Newer: its last words come later in what was said than the last reading's.
		last := len(words) - 1
		p := -1
		for j := len(saidWords) - 1; j >= 0 && p < 0; j-- {
			if saidWords[j] == words[last] && (last == 0 || j > 0 && saidWords[j-1] == words[last-1]) {
				p = j
			}
		}
		if p >= 0 {
			if p <= pos {
				t.Errorf("%q is not newer than the reading before", r.text)
			}
			pos = p
		}
	}
	if len(seen) < 3 {
		t.Errorf("%d different live texts in a %.0f-s hold with pauses; want one after each of several pauses", len(seen), held.Seconds())
	}
	if pos < len(saidWords)/2 {
		t.Errorf("the newest live text reached word %d of %d", pos+1, len(saidWords))
	}
	if dir := os.Getenv("WHISPERKEY_KEEP_SHOTS"); dir != "" {
		for i, r := range seen {
			f, err := os.Create(filepath.Join(dir, "live-text-"+string(rune('1'+i))+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, r.shot.SubImage(r.box.Inset(-8))); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	waitRecord(t, a.log, "dictated", before, 120*time.Second)
	if got := strings.TrimSpace(tg.waitText(t, 10*time.Second)); whisper.WordErrorRate(said, got) > 0.2 {
		t.Errorf("pasted %q, want %q", got, said)
	}
}
