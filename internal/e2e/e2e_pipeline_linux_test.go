package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// One setting, one behaviour: the words the tray pastes for a recording are
// the words `transcribe` and `transcribe --remote` (to a serve on the same
// model) give for the same samples, with the same config: its language and
// vocabulary, and the profile of the window dictated into.
func TestSameWordsEverywhere(t *testing.T) {
	desktopSession(t)
	recordings := t.TempDir()
	const said = "Please send the report to Siobhan before lunch."
	cfg := "model: " + testenv.Model(t, "base") + `
hotkeys:
  record: ctrl+shift+f9
  cancel: esc
language: en
vocabulary: [Siobhan, Aoife]
profiles:
  - name: editor
    match: {class: [wkeditor]}
    replacements:
      - {from: "before lunch", to: "before noon"}
    output: {strip_final_period: true}
`
	// The app keeps each recording, as heard, for the comparison.
	a, _ := launchApp(t, cfg, "WHISPERKEY_LOG_FORMAT=json", "WHISPERKEY_SAVE_RECORDINGS="+recordings)
	a.waitStatus(t, "ready", 90*time.Second)
	editor := openTarget(t, "-name", "wkeditor")
	holdAndSay(t, micWAV(t, said))
	pasted := strings.TrimSpace(editor.waitText(t, 30*time.Second))
	if wer := whisper.WordErrorRate(strings.Replace(said, "lunch.", "noon", 1), pasted); pasted == "" || wer > 0.3 {
		t.Fatalf("the editor got %q (WER %.2f)", pasted, wer)
	}
	if strings.HasSuffix(pasted, ".") || strings.Contains(pasted, "lunch") {
		t.Errorf("the editor got %q; its profile replaces \"before lunch\" and drops the final period", pasted)
	}
	recs, _ := filepath.Glob(filepath.Join(recordings, "*.wav"))
	if len(recs) != 1 {
		t.Fatalf("the app kept %d recordings, want 1", len(recs))
	}
	srv := startServe(t)
	// The app's config is the user's config of these runs: a plain transcribe
	// reads it, as the tray does, and --cleanup off changes nothing else.
	userConfig := "XDG_CONFIG_HOME=" + filepath.Dir(filepath.Dir(a.config))
	for _, args := range [][]string{
		{"transcribe", "--profile", "editor", recs[0]},
		{"transcribe", "--profile", "editor", "--cleanup", "off", recs[0]},
		{"transcribe", "--config", a.config, "--profile", "editor", recs[0]},
		{"transcribe", "--config", a.config, "--profile", "editor", "--remote", srv.url, recs[0]},
	} {
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)), userConfig, "WHISPERKEY_CONFIG=")
		r := runCmd(t, cmd)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		if got := strings.TrimSpace(r.stdout); got != pasted {
			t.Errorf("%s gives %q; the tray pasted %q", strings.Join(args[:len(args)-1], " "), got, pasted)
		}
	}
	t.Logf("tray, transcribe and transcribe --remote: %q", pasted)
}
