package whisper

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
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
