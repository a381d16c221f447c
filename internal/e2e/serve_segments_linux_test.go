//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Issue 34 item 6, through the real binary: subtitle cues and verbose_json
// segments end within the audio. A 1.39 s clip's segment ended at 2.0 s:
// Whisper hears each clip padded to 30 s and may end a segment inside the
// padding (the base model ends "Hello there." at 2.0 s of 0.97 s).
func TestServeSegmentsEndWithinAudio(t *testing.T) {
	srv := startServe(t)
	for _, said := range []string{"Hello there.", "Open the door.", "Yes."} {
		wav, err := os.ReadFile(speechWAV(t, said))
		if err != nil {
			t.Fatal(err)
		}
		post := func(format string) string {
			status, _, body := send(t, formRequest(t, srv.url, [][2]string{{"response_format", format}, {"language", "en"}}, "s.wav", wav))
			if status != 200 {
				t.Fatalf("%s: %d %s", format, status, body)
			}
			return body
		}
		var v struct {
			Duration float64 `json:"duration"`
			Segments []struct {
				Start, End float64
			} `json:"segments"`
		}
		if err := json.Unmarshal([]byte(post("verbose_json")), &v); err != nil {
			t.Fatal(err)
		}
		// espeak-ng writes 16-bit mono at 22,050 Hz after a 44-byte header.
		if want := float64(len(wav)-44) / 2 / 22050; v.Duration < want-0.01 || v.Duration > want+0.01 || len(v.Segments) == 0 {
			t.Fatalf("%q: duration %.3f s and %d segments; want %.3f s and some", said, v.Duration, len(v.Segments), want)
		}
		for _, sg := range v.Segments {
			if sg.End > v.Duration || sg.Start > sg.End {
				t.Errorf("%q: verbose_json segment %.3f–%.3f s, past the audio's %.3f s", said, sg.Start, sg.End, v.Duration)
			}
		}
		lastMs := int64(v.Duration*1000 + 0.5)
		for _, format := range []string{"srt", "vtt"} {
			for _, line := range strings.Split(post(format), "\n") {
				from, to, ok := strings.Cut(line, " --> ")
				if !ok {
					continue
				}
				if a, b := cueMs(t, from), cueMs(t, to); b > lastMs || a > b {
					t.Errorf("%q: %s cue %q ends past the audio's %d ms", said, format, line, lastMs)
				}
			}
		}
	}
}

// cueMs reads an SRT or WebVTT time, HH:MM:SS,mmm or HH:MM:SS.mmm.
func cueMs(t *testing.T, s string) int64 {
	t.Helper()
	var h, m, sec, ms int64
	if n, _ := fmt.Sscanf(strings.NewReplacer(",", ":", ".", ":").Replace(strings.TrimSpace(s)), "%d:%d:%d:%d", &h, &m, &sec, &ms); n != 4 {
		t.Fatalf("cue time %q", s)
	}
	return ((h*60+m)*60+sec)*1000 + ms
}
