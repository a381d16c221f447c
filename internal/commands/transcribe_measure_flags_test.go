package commands

import (
	"io"
	"strings"
	"testing"
)

// transcribe's switches for measuring the accuracy-affecting rules (issue
// #47): the defaults are the tray app's rules, and a threshold outside a
// probability is refused before anything loads.
func TestTranscribeMeasureFlags(t *testing.T) {
	cases := []struct {
		name       string
		args       []string
		detector   bool
		fallback   bool
		noSpeech   float64
		errorNames string
	}{
		{"defaults", nil, true, true, 0.6, ""},
		{"all off", []string{"--speech-detector=false", "--temperature-fallback=false", "--no-speech-threshold", "0"}, false, false, 0, ""},
		{"threshold above 1", []string{"--no-speech-threshold", "1.5"}, true, true, 0, "--no-speech-threshold"},
		{"negative threshold", []string{"--no-speech-threshold", "-0.1"}, true, true, 0, "--no-speech-threshold"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseTranscribe(append([]string{"a.wav"}, tc.args...), io.Discard)
			if tc.errorNames != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errorNames) {
					t.Fatalf("err = %v; want one naming %s", err, tc.errorNames)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.speechDetector != tc.detector || o.temperatureFallback != tc.fallback || o.noSpeechThreshold != tc.noSpeech {
				t.Fatalf("detector %v, fallback %v, no-speech %v; want %v, %v, %v",
					o.speechDetector, o.temperatureFallback, o.noSpeechThreshold, tc.detector, tc.fallback, tc.noSpeech)
			}
		})
	}
}
