package whisper

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// BenchmarkLanguagePrior prints, per clip of the real-speech sets (the big
// English one and the non-English one), the likeliest languages the base
// model detects on the window a CPU (short window) and a GPU (full window)
// decodes on, and counts the clips each rule puts in the wrong language:
// Whisper's (the likeliest), the prior of recent English dictations, and
// languages: [en, sv] (docs/benchmarks.md#language-prior). It takes minutes:
//
//	go test -run '^$' -bench LanguagePrior -benchtime 1x ./internal/whisper
func BenchmarkLanguagePrior(b *testing.B) {
	m := openBaseModel(b)
	type clip struct {
		name, lang string
		samples    []float32
	}
	var clips []clip
	for _, c := range testenv.SpeechSet(b) {
		clips = append(clips, clip{c.Name, "en", c.Samples})
	}
	for _, c := range testenv.LanguageSpeech(b) {
		clips = append(clips, clip{c.Name, c.Language, c.Samples})
	}
	type tally struct{ wrong, wrongShort int }
	rules := []struct {
		name            string
		allowed, recent []string
	}{{"whisper", nil, nil}, {"recent [en]", nil, []string{"en"}}, {"languages [en sv]", []string{"en", "sv"}, nil}}
	counts := map[string]*tally{}
	for _, c := range clips {
		mel, err := LogMel(c.samples, m.nMels)
		if err != nil {
			b.Fatal(err)
		}
		frames := mel.Frames - 1
		seconds := float64(frames) / 100
		width := min(NFrames, max(m.short.floorFrames, frames+m.short.marginFrames))
		for _, w := range []struct {
			name  string
			width int
		}{{"short", width}, {"full", NFrames}} {
			probs, err := m.detectLanguage(context.Background(), wire.Window{ID: m.nextID.Add(1), NMels: m.nMels, Frames: w.width, Features: mel.WindowN(0, min(frames, w.width), w.width)})
			if err != nil {
				b.Fatal(err)
			}
			line := fmt.Sprintf("%-32.32s %-2s %5.1fs %-5s", c.name, c.lang, seconds, w.name)
			for _, p := range probs[:3] {
				line += fmt.Sprintf(" %s %.2f", p.Language, p.Probability)
			}
			for _, r := range rules {
				got, _ := chooseLanguage(probs, r.allowed, r.recent, seconds)
				k := w.name + " " + r.name
				if counts[k] == nil {
					counts[k] = &tally{}
				}
				if got.Language != c.lang {
					counts[k].wrong++
					line += fmt.Sprintf("  [%s: %s]", r.name, got.Language)
					if seconds < PriorSeconds {
						counts[k].wrongShort++
					}
				}
			}
			fmt.Fprintln(os.Stderr, line)
		}
	}
	short := 0
	for _, c := range clips {
		if float64(len(c.samples))/SampleRate < PriorSeconds {
			short++
		}
	}
	for _, w := range []string{"short", "full"} {
		for _, r := range rules {
			t := counts[w+" "+r.name]
			fmt.Fprintf(os.Stderr, "%s window, %-18s wrong language on %d of %d clips (%d of the %d under %d s)\n", w, r.name, t.wrong, len(clips), t.wrongShort, short, PriorSeconds)
		}
	}
}
