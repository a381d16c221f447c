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

// BenchmarkStream is the cost of scoring audio as it arrives, per second of
// audio: what a hold costs while the key is down.
func BenchmarkStream(b *testing.B) {
	d := vadtest.Open(b)
	samples := testenv.PinkNoise(10, 1)
	b.ResetTimer()
	for range b.N {
		s := d.NewStream()
		for rest := samples; len(rest) > 0; {
			k := min(len(rest), 1600) // 100 ms at a time
			if err := s.Write(rest[:k]); err != nil {
				b.Fatal(err)
			}
			rest = rest[k:]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/10, "ms_per_audio_s")
}
