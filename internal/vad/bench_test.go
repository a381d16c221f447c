package vad_test

import (
	"fmt"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
)

// BenchmarkSpeech is the speech detector's cost per press, by press length.
func BenchmarkSpeech(b *testing.B) {
	d := vadtest.Open(b)
	for _, sec := range []float64{1.5, 5, 25} {
		samples := testenv.PinkNoise(sec, 1)
		b.Run(fmt.Sprintf("%gs", sec), func(b *testing.B) {
			for range b.N {
				if _, _, _, err := d.Speech(samples); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
