package whisper

import (
	"math"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

func TestRepeats(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"Front, left. Front, left. Front, left.", true},
		{"I didn't know you were there. I didn't know you were there. I didn't know you were there.", true},
		{"no no no no", true},
		{"No, no, no, I said.", false},
		{"Front left.", false},
		{"Remember to buy milk, bread and eggs on the way home.", false},
		{"that that is is that that is not is not", false},
		// Eight words or more, twice in a row: the short window's long loop.
		{"especially as regards the lower case letters, and type very similar was used during the next 15 or 20 years, not only by Schoffer, and type very similar was used during the next 15 or 20 years, not only by Schoffer,", true},
		{"one two three four five six seven eight, one two three four five six seven eight", true},
		{"one two three four five six seven, one two three four five six seven", false},
		{"I said it once and then I said it once more to be sure.", false},
	}
	for _, c := range cases {
		if got := repeats(c.text); got != c.want {
			t.Errorf("repeats(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestRejectShortWindow(t *testing.T) {
	sw := defaultShortWindow
	ok := decoded{avgLogProb: -0.3, compression: 1.1, res: engine.GenerateResult{NoSpeechProb: 0.05}}
	with := func(f func(*decoded)) decoded { d := ok; f(&d); return d }
	cases := []struct {
		name       string
		d          decoded
		text       string
		cap, unfin bool
		seconds    float64
		want       bool
	}{
		{"good", ok, "Please call me back.", false, false, 1.5, false},
		{"empty", ok, "", false, false, 1.5, true},
		{"token cap", ok, "Please call me back.", true, false, 1.5, true},
		{"unfinished", ok, "How do we define", false, true, 0.9, true},
		{"no speech", with(func(d *decoded) { d.res.NoSpeechProb = 0.7 }), "Thank you.", false, false, 1, true},
		{"unlikely", with(func(d *decoded) { d.avgLogProb = -1.3 }), "We're right.", false, false, 1, true},
		{"repetitive", with(func(d *decoded) { d.compression = 2.6 }), "Please call me back.", false, false, 1.5, true},
		{"too many words", ok, "one two three four five six seven eight nine ten", false, false, 1, true},
		{"loop", ok, "Front, left. Front, left. Front, left.", false, false, 3, true},
	}
	for _, c := range cases {
		reason := sw.reject(c.d, c.text, c.cap, c.unfin, c.seconds)
		if (reason != "") != c.want {
			t.Errorf("%s: reject = %q, want rejected %v", c.name, reason, c.want)
		}
	}
}

// A short attempt that a guard rejects is decoded again on the full window,
// with exactly the full window's words, and the result says why. The guards
// themselves are TestRejectShortWindow's table.
func TestRejectedShortAttemptFallsBack(t *testing.T) {
	m := openBaseModel(t)
	m.short.floorFrames, m.short.marginFrames = 300, 100
	// Whether this clip really loops on a 3-s window depends on the CPU's
	// int8 kernels (it loops on some machines and not on others), so the
	// words-per-second guard is closed: every short attempt is rejected as
	// a loop would be, and what is tested is the fallback itself.
	m.short.maxWordsPerSec, m.short.slackWords = 0, 0
	samples := testenv.Speech(t, "Please call me back when you get this message.")
	opt := DefaultOptions()
	opt.Language = "en"
	full := transcribe(t, m, samples, opt)
	opt.Window = ShortWindow
	res := transcribe(t, m, samples, opt)
	t.Logf("path %s (%s): %q; full window: %q", res.Path, res.FallbackReason, res.Text, full.Text)
	if res.Path != PathShortThenFull {
		t.Fatalf("path %q, want %q: the rejected short attempt did not fall back", res.Path, PathShortThenFull)
	}
	if res.FallbackReason == "" {
		t.Errorf("the fallback gives no reason")
	}
	if res.Text != full.Text {
		t.Errorf("after the fallback the text is %q, the full window's is %q", res.Text, full.Text)
	}
	if res.Timings.ShortWindow <= 0 || res.Timings.ShortWindow > res.Timings.Engine {
		t.Errorf("timings %+v: the short attempt is part of the engine time", res.Timings)
	}
}

// The telephone call of the real-speech set is narrowband and everything
// else wideband, with room on both sides of each threshold.
func TestNarrowbandTellsTelephoneAudio(t *testing.T) {
	sw := defaultShortWindow
	for _, c := range testenv.RealSpeech(t) {
		mel, err := LogMel(c.Samples, 80)
		if err != nil {
			t.Fatal(err)
		}
		drop, over := bandLevels(mel, 0, mel.ContentFrames())
		phone := strings.HasPrefix(c.Name, "callhome")
		if got := sw.narrowband(mel, 0, mel.ContentFrames()) != ""; got != phone {
			t.Errorf("%s: narrowband %v, telephone %v (band drop %.2f, %.2f over the floor)", c.Name, got, phone, drop, over)
		}
		if math.Abs(drop-sw.maxBandDrop) < 0.1 || math.Abs(over-sw.minHighOverFloor) < 0.03 {
			t.Errorf("%s: band drop %.2f (threshold %.2f), %.2f over the floor (threshold %.2f): too close to tell",
				c.Name, drop, sw.maxBandDrop, over, sw.minHighOverFloor)
		}
	}
}
