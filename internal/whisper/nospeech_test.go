package whisper_test

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// loopingEngine answers as Whisper did on 111 s of one espeak-ng sentence
// (#34): the beam search (temperature 0) reads the words, likely but
// looping; every sample is unlikely; and the no-speech probability is high.
type loopingEngine struct {
	loop, sample []int
	loopAvg      float64 // average log-probability of the beam search's loop
}

func (e loopingEngine) DetectLanguage(context.Context, wire.Window) ([]wire.LangProb, error) {
	return nil, errors.New("not asked: the language is given")
}

func (e loopingEngine) Generate(_ context.Context, _ wire.Window, r wire.GenerateRequest) (wire.GenerateResult, error) {
	ids, avg := e.sample, -2.0
	if r.BeamSize > 1 {
		ids, avg = e.loop, e.loopAvg
	}
	// The engine's score is the length-normalised sum the transcriber
	// turns back into an average over len+1 tokens.
	n := float64(len(ids))
	return wire.GenerateResult{SequencesIDs: [][]int{ids}, Scores: []float32{float32(avg * (n + 1) / n)}, NoSpeechProb: 0.95}, nil
}

// fixedDetector hears speech or not, whatever the samples, and counts the
// times it is asked.
type fixedDetector struct {
	hears bool
	asked int
}

func (d *fixedDetector) Speech(s []float32) (int, int, bool, error) {
	d.asked++
	if !d.hears {
		return 0, 0, false, nil
	}
	return 0, len(s), true, nil
}

// A silence verdict that only a hot sample gives, in a window whose beam
// search read words, drops the window only when the speech detector does
// not hear speech in it (or there is none, as in faster-whisper); a window
// that is unlikely at temperature 0 is silence as in faster-whisper.
func TestSilenceVerdictOfASampleNeedsTheDetector(t *testing.T) {
	tok, err := whisper.LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	ts := tok.TimestampBegin()
	encode := func(text string, end float64) []int {
		ids, err := tok.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		return append(append([]int{ts}, ids...), ts+int(math.Round(end/0.02)))
	}
	loop := encode(strings.Repeat(" The quick brown fox jumps over the lazy dog.", 12), 29)
	sample := encode(" The quick round fox.", 2)
	audio := make([]float32, 40*whisper.SampleRate) // two windows, loud and quiet in turn
	for i := range audio {
		audio[i] = float32(0.3 * math.Sin(2*math.Pi*200*float64(i)/whisper.SampleRate) * math.Max(0, math.Sin(2*math.Pi*2*float64(i)/whisper.SampleRate)))
	}
	cases := []struct {
		name     string
		detector *fixedDetector // nil: none
		detect   bool           // Options.DetectSpeech
		loopAvg  float64
		want     string
		asked    int
	}{
		{"no detector: dropped, as faster-whisper does", nil, true, -0.1, "", 0},
		{"detector off: dropped", &fixedDetector{hears: true}, false, -0.1, "", 0},
		{"detector hears nothing: dropped", &fixedDetector{hears: false}, true, -0.1, "", 2},
		{"detector hears speech: kept, the fallback's choice", &fixedDetector{hears: true}, true, -0.1, "The quick round fox. The quick round fox.", 2},
		{"unlikely at temperature 0: silence, not asked", &fixedDetector{hears: true}, true, -1.5, "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := whisper.NewTranscriber(loopingEngine{loop: loop, sample: sample, loopAvg: tc.loopAvg}, tok, 80, testlog.New(t, slog.LevelWarn))
			if tc.detector != nil {
				tr.UseSpeechDetector(tc.detector)
			}
			opt := whisper.DefaultOptions()
			opt.Language, opt.DetectSpeech = "en", tc.detect
			res, err := tr.Transcribe(context.Background(), audio, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tc.want {
				t.Errorf("text %q, want %q", res.Text, tc.want)
			}
			if tc.detector != nil && tc.detector.asked != tc.asked {
				t.Errorf("the detector was asked %d times, want %d (once a window, only to overrule)", tc.detector.asked, tc.asked)
			}
		})
	}
}
