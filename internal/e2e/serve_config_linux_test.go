//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// decodeLine is the decoder's debug line for one request to the engine
// (serve --verbose): the beam it asked for, at temperature 0 (a fallback to
// a higher temperature samples, with a beam of 1 whatever the setting).
var decodeLine = regexp.MustCompile(`msg=decode [^\n]*? beam_size=(\d+) temperature=0(?:\s|$)`)

// Issue 48: serve takes its decoding defaults (model, beam_size, the
// language of a request that names none) from the config it is given, as
// the tray app and transcribe do, and its flags override them. The config
// differs from the built-in defaults in each: a model named only there,
// beam_size 1 (default 5) and language fr (default auto), with English
// speech, so the language shows in the answer (detection would say
// english) and the beam in the decoder's requests to the engine.
func TestServeTakesConfigDefaults(t *testing.T) {
	model := testenv.Model(t, "base")
	wav, err := os.ReadFile(speechWAV(t, "The meeting moved to Thursday afternoon at three."))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeConfig(t, cfg, "model: "+model+"\ndevice: cpu\nlanguage: fr\nbeam_size: 1\n")
	answer := func(t *testing.T, srv *servedBinary, fields ...[2]string) (language, text string) {
		t.Helper()
		status, _, body := send(t, formRequest(t, srv.url, append(fields, [2]string{"response_format", "verbose_json"}), "speech.wav", wav))
		var v struct{ Language, Text string }
		if err := json.Unmarshal([]byte(body), &v); status != 200 || err != nil {
			t.Fatalf("%d %s (%v)", status, body, err)
		}
		return v.Language, v.Text
	}
	beams := func(srv *servedBinary) map[string]int {
		n := map[string]int{}
		for _, m := range decodeLine.FindAllStringSubmatch(srv.stderr.String(), -1) {
			n[m[1]]++
		}
		return n
	}

	t.Run("the config's values", func(t *testing.T) {
		srv := startServeWith(t, "--config", cfg, "--verbose")
		if lang, text := answer(t, srv); lang != "french" {
			t.Errorf("a request naming no language was decoded in %q (%q); the config says fr", lang, text)
		}

		if lang, _ := answer(t, srv, [2]string{"language", "en"}); lang != "english" {
			t.Errorf("a request naming en was decoded in %q; the request's language comes first", lang)
		}
		if b := beams(srv); b["1"] == 0 || len(b) != 1 {
			t.Errorf("the decoder asked the engine for beams %v; the config says beam_size 1\n%s", b, srv.stderr)
		}
		if !strings.Contains(srv.stderr.String(), "model="+model) {
			t.Errorf("serve did not load the config's model %s:\n%s", model, srv.stderr)
		}
	})
	t.Run("flags over the config", func(t *testing.T) {
		flags := []string{"--config", cfg, "--language", "auto", "--beam-size", "5"}
		srv := startServeWith(t, append(flags, "--verbose")...)
		lang, served := answer(t, srv)
		if lang != "english" {
			t.Errorf("with --language auto, English speech was decoded in %q (%q)", lang, served)
		}
		// transcribe reads the same config and flags the same way: the same
		// words. (Not with fr above: French forced on English speech falls
		// back to sampling, which is random.)
		file := filepath.Join(t.TempDir(), "speech.wav")
		if err := os.WriteFile(file, wav, 0o644); err != nil {
			t.Fatal(err)
		}
		if r := whisperkey(t, append([]string{"transcribe", file}, flags...)...); r.code != 0 || strings.TrimSpace(r.stdout) != strings.TrimSpace(served) {
			t.Errorf("transcribe %v gave %q (exit %d, %s); serve gave %q", flags, r.stdout, r.code, r.stderr, served)
		}
		if b := beams(srv); b["5"] == 0 || len(b) != 1 {
			t.Errorf("the decoder asked the engine for beams %v; --beam-size 5 overrides the config\n%s", b, srv.stderr)
		}
	})
	t.Run("a bad config named by --config", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		writeConfig(t, bad, "beam_size: 99\n")
		r := whisperkey(t, "serve", "--config", bad)
		if r.code != 2 || !strings.Contains(r.stderr, "beam") || !strings.Contains(r.stderr, bad) {
			t.Errorf("serve --config with beam_size 99: exit %d, stderr %q; want exit 2 naming the file and the key", r.code, r.stderr)
		}
	})
}
