package testenv

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LangClip is a real recording in a known language.
type LangClip struct {
	Clip
	Language string // Whisper's code, such as "sv"
}

// LanguageSpeech returns the non-English recordings scripts/speech-langs.sh
// put in the cache (its manifest.tsv), or stops the test.
func LanguageSpeech(t testing.TB) []LangClip {
	t.Helper()
	dir := filepath.Join(Cache(), "speech-langs")
	rows := manifestRows(t, dir, "bash scripts/speech-langs.sh")
	var clips []LangClip
	for _, r := range rows {
		if len(r) < 3 {
			continue
		}
		s, err := readPCM16(filepath.Join(dir, r[0]))
		if err != nil {
			t.Fatalf("language speech: %v (re-run scripts/speech-langs.sh)", err)
		}
		clips = append(clips, LangClip{Clip: Clip{Name: strings.TrimSuffix(r[0], ".wav"), Reference: r[2], Samples: s}, Language: r[1]})
	}
	return clips
}

// SpeechSet returns the English recordings of the big set
// scripts/speech-set.sh puts in the cache, or stops the test.
func SpeechSet(t testing.TB) []Clip {
	t.Helper()
	dir := filepath.Join(Cache(), "speech-set")
	var clips []Clip
	for _, r := range manifestRows(t, dir, "bash scripts/speech-set.sh") {
		if len(r) < 2 {
			continue
		}
		s, err := readPCM16(filepath.Join(dir, r[0]))
		if err != nil {
			t.Fatalf("speech set: %v (re-run scripts/speech-set.sh)", err)
		}
		clips = append(clips, Clip{Name: strings.TrimSuffix(r[0], ".wav"), Reference: r[1], Samples: s})
	}
	return clips
}

// manifestRows are the tab-separated lines of dir/manifest.tsv; a missing
// one stops the test, naming the script (how) that makes it.
func manifestRows(t testing.TB, dir, how string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		Require(t, "recordings in "+dir, how)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	if err := sc.Err(); err != nil || len(rows) == 0 {
		t.Fatalf("manifest %s: empty or unreadable (%v); re-run %s", f.Name(), err, how)
	}
	return rows
}
