package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// transcribe --profile applies a profile of the config, and --json names the
// profile and the cleanup mode; the AI cleanup runs through a real chat
// server with a real (small) model, and the text as heard is reported
// beside a rewrite that differs, or the notice says why there is none.
func TestTranscribeProfileAndCleanupJSON(t *testing.T) {
	model := testenv.Model(t, "base")
	chat := testenv.ChatServer(t)
	const said = "So I think we should meet on Tuesday."
	wav := speechWAV(t, said)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(`profiles:
  - name: term
    match: {class: xterm}
    output: {case: lower, strip_final_period: true}
    cleanup: clean
cleanup:
  enabled: true
  url: `+chat+`
  model: `+testenv.ChatModelName+`
  timeout: 1m
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := whisperkey(t, "transcribe", "--json", "--language", "en", "--config", cfg, "--profile", "term", wav, "--model", model)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var j struct {
		Text          string `json:"text"`
		Profile       string `json:"profile"`
		Cleanup       string `json:"cleanup"`
		RawText       string `json:"raw_text"`
		CleanupNotice string `json:"cleanup_notice"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.stdout)
	}
	t.Logf("%+v", j)
	if j.Profile != "term" || j.Cleanup != "clean" || (j.RawText != "" && j.CleanupNotice != "") {
		t.Fatalf("JSON %+v: want profile term, cleanup clean, and the text as heard (when the rewrite differs) or a notice, not both", j)
	}
	if j.Text != strings.ToLower(j.Text) || strings.HasSuffix(j.Text, ".") {
		t.Errorf("text %q: the profile wants lower case and no final period", j.Text)
	}
	for _, w := range []string{"meet", "tuesday"} {
		if !strings.Contains(j.Text, w) {
			t.Errorf("text %q lost %q", j.Text, w)
		}
	}
	if j.RawText != "" && whisper.WordErrorRate(said, j.RawText) > 0.3 {
		t.Errorf("text as heard %q is far from %q", j.RawText, said)
	}

	r = whisperkey(t, "transcribe", "--config", cfg, "--profile", "mail", wav, "--model", model)
	if r.code != 2 || !strings.Contains(r.stderr, `no profile "mail"`) || !strings.Contains(r.stderr, "term") {
		t.Errorf("unknown profile: exit %d, stderr %q", r.code, r.stderr)
	}
}
