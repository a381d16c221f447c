package commands

import (
	"io"
	"strings"
	"testing"
)

// The --max-audio of transcribe is range-checked before anything loads.
func TestTranscribeMaxAudioFlag(t *testing.T) {
	cases := []struct {
		value string
		ok    bool
	}{{"90m", true}, {"24h", true}, {"1s", true}, {"0s", false}, {"500ms", false}, {"25h", false}, {"1000000h", false}}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			_, err := parseTranscribe([]string{"a.wav", "--max-audio", tc.value}, io.Discard)
			if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "--max-audio") {
				t.Fatalf("--max-audio %s: %v", tc.value, err)
			}
		})
	}
}
