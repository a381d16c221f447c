package whisper_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/audio"
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

// vocabularySpeech reads the real recordings that scripts/speech.sh put in the
// cache (its manifest.tsv lists file and reference).
func vocabularySpeech(t *testing.T) []werClip {
	t.Helper()
	dir := filepath.Join(testenv.Cache(), "speech")
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		testenv.Require(t, "real speech set "+dir, "bash scripts/speech.sh")
	}
	defer f.Close()
	var clips []werClip
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		file, ref, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		s, err := audio.DecodeFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("real speech: %v (re-run scripts/speech.sh)", err)
		}
		clips = append(clips, werClip{strings.TrimSuffix(file, ".wav"), ref, s})
	}
	if len(clips) == 0 {
		t.Fatalf("real speech manifest in %s is empty; re-run scripts/speech.sh", dir)
	}
	return clips
}

// TestVocabularyKeepsWER: a 20-word vocabulary of words nobody says in the
// clips does not raise the word error rate on the espeak sentences or on
// real speech.
func TestVocabularyKeepsWER(t *testing.T) {
	m := openBase(t)
	espeak := make([]werClip, 0, len(sentences))
	for _, s := range sentences {
		espeak = append(espeak, werClip{s[:20], s, testenv.Speech(t, s)})
	}
	sets := []struct {
		name  string
		clips []werClip
	}{{"espeak", espeak}, {"real speech", vocabularySpeech(t)}}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			var plain, vocab float64
			for _, c := range set.clips {
				opt := whisper.DefaultOptions()
				opt.Language = "en"
				a, err := m.Transcribe(context.Background(), c.samples, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.Vocabulary = unrelatedVocabulary
				b, err := m.Transcribe(context.Background(), c.samples, opt)
				if err != nil {
					t.Fatal(err)
				}
				wa, wb := whisper.WordErrorRate(c.ref, a.Text), whisper.WordErrorRate(c.ref, b.Text)
				plain, vocab = plain+wa, vocab+wb
				t.Logf("%-14s WER %.3f → %.3f  %q → %q", c.name, wa, wb, a.Text, b.Text)
			}
			n := float64(len(set.clips))
			t.Logf("%s: mean WER %.4f without, %.4f with the unrelated vocabulary (%d clips)", set.name, plain/n, vocab/n, len(set.clips))
			if vocab > plain+1e-9 {
				t.Errorf("mean WER rose from %.4f to %.4f with an unrelated vocabulary", plain/n, vocab/n)
			}
		})
	}
}
