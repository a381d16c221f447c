package whisper_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// unrelatedVocabulary is 20 names and terms said in none of the test clips.
var unrelatedVocabulary = []string{
	"Kubernetes", "ComfyUI", "Siobhan", "Przybylski", "PostgreSQL", "Grafana", "Terraform",
	"Okonkwo", "Aoife", "Nguyen", "CTranslate2", "WhisperKey", "Figma", "Jira", "Zendesk",
	"Kafka", "Svelte", "Tailscale", "Reykjavik", "Ljubljana",
}

type werClip struct {
	name, ref string
	samples   []float32
}

// vocabularySpeech is testenv.RealSpeech, the real recordings of
// scripts/speech.sh, as werClips.
func vocabularySpeech(t *testing.T) []werClip {
	t.Helper()
	var clips []werClip
	for _, c := range testenv.RealSpeech(t) {
		clips = append(clips, werClip{c.Name, c.Reference, c.Samples})
	}
	return clips
}

// TestVocabularyKeepsWER: a 20-word vocabulary of words nobody says in the
// clips leaves the text alone. A window whose vocabulary-prompted decode
// writes none of the terms is decoded again without the vocabulary, so each
// clip's text with the vocabulary is, word for word, its text without it
// (the same decode: same audio, prompt and engine, temperature 0), unless
// the prompted decode wrote a term. That holds on every CPU, whatever its
// int8 kernels make of the audio; the pooled WER must then stay within 0.3
// points (the product's bound for an unrelated vocabulary), which only
// clips with a term written in can move.
func TestVocabularyKeepsWER(t *testing.T) {
	m := openBase(t)
	espeak := make([]werClip, 0, len(whisper.Sentences))
	for _, s := range whisper.Sentences {
		espeak = append(espeak, werClip{s[:20], s, testenv.Speech(t, s)})
	}
	sets := []struct {
		name  string
		clips []werClip
	}{{"espeak", espeak}, {"real speech", vocabularySpeech(t)}}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			var plainErrs, vocabErrs, words int
			for _, c := range set.clips {
				opt := whisper.DefaultOptions()
				opt.Language = "en"
				// Temperature 0 only: a sampled fallback draws tokens at random,
				// and the two decodes must differ by the vocabulary alone.
				opt.Temperatures = []float32{0}
				a, err := m.Transcribe(context.Background(), c.samples, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.Vocabulary = unrelatedVocabulary
				b, err := m.Transcribe(context.Background(), c.samples, opt)
				if err != nil {
					t.Fatal(err)
				}
				ea, n := whisper.WordErrors(c.ref, a.Text)
				eb, _ := whisper.WordErrors(c.ref, b.Text)
				plainErrs, vocabErrs, words = plainErrs+ea, vocabErrs+eb, words+n
				term := writesTerm(b.Text, unrelatedVocabulary)
				t.Logf("%-14s errors %d → %d  %q → %q (term: %q)", c.name, ea, eb, a.Text, b.Text, term)
				if term == "" && a.Text != b.Text {
					t.Errorf("%s: with the vocabulary %q, without %q: a decode that writes no term must be the one without the vocabulary", c.name, b.Text, a.Text)
				}
			}
			plain, vocab := float64(plainErrs)/float64(words), float64(vocabErrs)/float64(words)
			t.Logf("%s: pooled WER %.4f without, %.4f with the unrelated vocabulary (%d clips, %d words)", set.name, plain, vocab, len(set.clips), words)
			if vocab > plain+0.003 {
				t.Errorf("pooled WER rose from %.4f to %.4f with an unrelated vocabulary (allowed: 0.3 points)", plain, vocab)
			}
		})
	}
}

// TestVocabularyWritesTermsSaid: in sentences that say one of the twenty
// terms, the vocabulary still spells it as written (the prompted decode
// writes the term, so it is kept), and the rest of the sentence stays right.
// (Aoife, among twenty terms, comes out as "FIFA" with or without the retry;
// with three terms it is spelled right: TestVocabularySpellsName.)
func TestVocabularyWritesTermsSaid(t *testing.T) {
	m := openBase(t)
	cases := []struct{ term, said string }{
		{"Siobhan", "Please send the report to Siobhan before lunch."},
		{"Kubernetes", "We run everything on Kubernetes now."},
		{"Grafana", "The dashboard in Grafana shows the error rate."},
	}
	for _, tc := range cases {
		t.Run(tc.term, func(t *testing.T) {
			opt := whisper.DefaultOptions()
			opt.Language, opt.Temperatures = "en", []float32{0}
			opt.Vocabulary = unrelatedVocabulary
			res, err := m.Transcribe(context.Background(), testenv.Speech(t, tc.said), opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%q", res.Text)
			if got := writesTerm(res.Text, []string{tc.term}); got == "" || !strings.Contains(res.Text, tc.term) {
				t.Errorf("%q lacks %s as written", res.Text, tc.term)
			}
			if wer := whisper.WordErrorRate(tc.said, res.Text); wer > 0.2 {
				t.Errorf("WER %.2f: %q", wer, res.Text)
			}
		})
	}
}

// writesTerm returns the first of terms that text contains as whole words,
// ignoring case and punctuation, or "".
func writesTerm(text string, terms []string) string {
	words := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), notWordRune), " ") + " "
	for _, term := range terms {
		if strings.Contains(words, " "+strings.Join(strings.FieldsFunc(strings.ToLower(term), notWordRune), " ")+" ") {
			return term
		}
	}
	return ""
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// promptRecorder passes calls to the real engine and keeps each decoder prompt.
type promptRecorder struct {
	whisper.Engine
	prompts [][]int
}

func (r *promptRecorder) Generate(ctx context.Context, win engine.Window, req engine.GenerateRequest) (engine.GenerateResult, error) {
	r.prompts = append(r.prompts, slices.Clone(req.Prompt))
	return r.Engine.Generate(ctx, win, req)
}

// TestPromptLayout: the vocabulary and the prompt reach the decoder as
// faster-whisper lays them out (<|startofprev|>, vocabulary, previous text,
// then the start of transcript), and together never take more than half of
// the 448-token context, however long they are.
// longPrompt is what a vocabulary over the budget leaves in the prompt: the
// terms that fit whole, in order, then the end of the initial prompt in the
// tokens still free. It checks that the next term would not have fitted.
func longPrompt(t *testing.T, tr *whisper.Transcriber, long []string, encode func(string) []int) []int {
	t.Helper()
	opt := whisper.DefaultOptions()
	opt.Vocabulary = long
	kept, dropped := tr.FitVocabulary(opt)
	if len(kept) == 0 || len(dropped) == 0 || !slices.Equal(append(slices.Clone(kept), dropped...), long) {
		t.Fatalf("FitVocabulary of %d terms: kept %d, dropped %d, not a split of the list in order", len(long), len(kept), len(dropped))
	}
	ids := encode(" " + strings.Join(kept, ", ") + ".")
	if n := len(encode(" " + strings.Join(long[:len(kept)+1], ", ") + ".")); len(ids) > 223 || n <= 223 {
		t.Fatalf("%d kept terms take %d tokens and one more %d; the budget is 223", len(kept), len(ids), n)
	}
	prompt := encode(" Hello, Anna.")
	return append(ids, prompt[max(0, len(prompt)-(223-len(ids))):]...)
}

func TestPromptLayout(t *testing.T) {
	m := openBase(t)
	rec := &promptRecorder{Engine: m.Client}
	tr := whisper.NewTranscriber(rec, m.Tok, m.Client.Ready().Model.NMels, slog.New(slog.DiscardHandler))
	speech := testenv.Speech(t, "Please call me back when you get this message.")
	sotPrev, sot := m.Tok.SOTPrev(), m.Tok.SOT()
	encode := func(s string) []int {
		ids, err := m.Tok.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	long := make([]string, 0, 200)
	for i := range 200 {
		long = append(long, fmt.Sprintf("Term%d", i))
	}
	cases := []struct {
		name   string
		vocab  []string
		prompt string
		want   []int // the tokens between <|startofprev|> and <|startoftranscript|>
	}{
		{"none", nil, "", nil},
		{"vocabulary", []string{"Siobhan", " Kubernetes "}, "", encode(" Siobhan, Kubernetes.")},
		{"prompt", nil, "Hello, Anna.", encode(" Hello, Anna.")},
		{"both: vocabulary first", []string{"Siobhan"}, "Hello, Anna.", append(encode(" Siobhan."), encode(" Hello, Anna.")...)},
		{"long vocabulary is cut to the budget, at whole terms", long, "Hello, Anna.", longPrompt(t, tr, long, encode)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec.prompts = nil
			opt := whisper.DefaultOptions()
			opt.Language, opt.Vocabulary, opt.InitialPrompt = "en", tc.vocab, tc.prompt
			res, err := tr.Transcribe(context.Background(), speech, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.prompts) == 0 {
				t.Fatal("no decoder call")
			}
			p := rec.prompts[0]
			start := slices.Index(p, sot)
			var got []int
			if start > 0 {
				if p[0] != sotPrev {
					t.Fatalf("prompt starts with %d, want <|startofprev|>", p[0])
				}
				got = p[1:start]
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("previous-text part %v\nwant %v", got, tc.want)
			}
			if start > 224 {
				t.Errorf("%d tokens before <|startoftranscript|>, want at most 224", start)
			}
			if wer := whisper.WordErrorRate("Please call me back when you get this message.", res.Text); wer > 0.15 {
				t.Errorf("WER %.2f: %q", wer, res.Text)
			}
		})
	}
}
