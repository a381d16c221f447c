package whisper_test

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// spellingEngine answers every window with the given token ids: an engine
// whose model writes control characters, which the byte-level vocabulary
// can spell.
type spellingEngine struct{ ids []int }

func (e spellingEngine) DetectLanguage(context.Context, wire.Window) ([]wire.LangProb, error) {
	return nil, errors.New("not asked: the language is given")
}

func (e spellingEngine) Generate(context.Context, wire.Window, wire.GenerateRequest) (wire.GenerateResult, error) {
	return wire.GenerateResult{SequencesIDs: [][]int{e.ids}, Scores: []float32{-0.1}}, nil
}

// The local engine's text is sanitized where it is made, so serve's
// responses and every caller get plain text (textproc's TestSanitize has
// the rules).
func TestSegmentTextIsSanitized(t *testing.T) {
	tok, err := whisper.LoadTokenizer(testenv.Model(t, "base"))
	if err != nil {
		t.Fatal(err)
	}
	words, err := tok.Encode(" Run make\r\nrm -rf ~\a\x1b]0;pwned\a then \u202etxt.exe")
	if err != nil {
		t.Fatal(err)
	}
	ts := tok.TimestampBegin()
	ids := append(append([]int{ts}, words...), ts+100)
	tr := whisper.NewTranscriber(spellingEngine{ids}, tok, 80, testlog.New(t, slog.LevelWarn))
	speech := make([]float32, 3*whisper.SampleRate)
	for i := range speech {
		// Loud and quiet in turn, so isSilent lets it through to the engine.
		speech[i] = float32(0.3 * math.Sin(2*math.Pi*200*float64(i)/whisper.SampleRate) * math.Max(0, math.Sin(2*math.Pi*2*float64(i)/whisper.SampleRate)))
	}
	opt := whisper.DefaultOptions()
	opt.Language = "en"
	res, err := tr.Transcribe(context.Background(), speech, opt)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Run make rm -rf ~ then txt.exe"
	if res.Text != want || len(res.Segments) != 1 || res.Segments[0].Text != " "+want {
		t.Fatalf("text %q, segments %+v; want %q", res.Text, res.Segments, want)
	}
}
