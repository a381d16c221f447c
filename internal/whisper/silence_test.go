package whisper

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

func TestIsSilent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3 * SampleRate
	gen := func(f func(i int) float64) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(f(i))
		}
		return s
	}
	speech := testenv.Speech(t, "Testing one two three, this is speech.")
	noisy := make([]float32, len(speech))
	for i, v := range speech {
		noisy[i] = v + float32(rng.NormFloat64()*0.01)
	}
	quiet := make([]float32, len(speech))
	for i, v := range speech {
		quiet[i] = v * 0.02 // about -40 dBFS peaks
	}
	cases := []struct {
		name    string
		samples []float32
		want    bool
	}{
		{"zeros", make([]float32, n), true},
		{"white noise -70 dBFS", gen(func(int) float64 { return rng.NormFloat64() * 0.0003 }), true},
		{"white noise -20 dBFS", gen(func(int) float64 { return rng.NormFloat64() * 0.1 }), true},
		{"50 Hz hum", gen(func(i int) float64 { return 0.3 * math.Sin(2*math.Pi*50*float64(i)/SampleRate) }), true},
		{"speech", speech, false},
		{"speech over -40 dBFS noise", noisy, false},
		{"quiet speech", quiet, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := isSilent(tc.samples); got != tc.want {
				t.Fatalf("isSilent = %v, want %v", got, tc.want)
			}
		})
	}
}
