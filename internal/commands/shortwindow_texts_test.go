package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// shortWindowLimit finds where a text names the short window's limit:
// "up to 18 s" or "under 10 s" or "up to 18 seconds" in a sentence about it.
var shortWindowLimit = regexp.MustCompile(`(?i)(?:recordings?|dictations?) (?:of )?(?:under|up to|below|shorter than) (\d+)(?: |-)?(?:s|sec|seconds)\b`)

// Every text that names how long a recording the short window takes says
// the code's number: the example config, the settings reference, doctor
// and `transcribe --help`.
func TestShortWindowLimitOneNumber(t *testing.T) {
	texts := map[string]string{}
	for _, f := range []string{"config.example.yaml", filepath.Join("docs", "configuration.md")} {
		b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	var help, stderr bytes.Buffer
	_ = run(context.Background(), testBuild, []string{"transcribe", "--help"}, &help, &stderr)
	texts["transcribe --help"] = help.String() + stderr.String()
	var doctor bytes.Buffer
	backend.DoctorReport{Engine: &backend.EngineReport{Device: "cpu", Window: "short"}}.Print(&doctor)
	texts["doctor"] = doctor.String()

	want := strconv.Itoa(whisper.ShortWindowLimit)
	for name, text := range texts {
		found := shortWindowLimit.FindAllStringSubmatch(text, -1)
		if len(found) == 0 {
			t.Errorf("%s does not name the short window's limit (want %q to match %s)", name, want+" s", shortWindowLimit)
		}
		for _, m := range found {
			if m[1] != want {
				t.Errorf("%s says %q; the short window takes recordings up to %s s (whisper.ShortWindowLimit)", name, m[0], want)
			}
		}
	}
}
