package testenv

import (
	"math"
	"math/rand/v2"
)

// Noise-only "presses": what a microphone hears when the key is held and
// nobody speaks. Each is seconds long at 16 kHz, seeded, so runs repeat.

// PinkNoise is 1/f noise (Paul Kellet's filter) at about -30 dBFS.
func PinkNoise(seconds float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, int(seconds*16000))
	var b0, b1, b2, b3, b4, b5, b6 float64
	for i := range out {
		w := rng.NormFloat64()
		b0 = 0.99886*b0 + w*0.0555179
		b1 = 0.99332*b1 + w*0.0750759
		b2 = 0.96900*b2 + w*0.1538520
		b3 = 0.86650*b3 + w*0.3104856
		b4 = 0.55000*b4 + w*0.5329522
		b5 = -0.7616*b5 - w*0.0168980
		out[i] = float32((b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362) * 0.006)
		b6 = w * 0.115926
	}
	return out
}

// Clicks are key or mouse clicks: a few sharp decaying bursts over faint hiss.
func Clicks(seconds float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := hiss(rng, seconds)
	for at := 2000 + rng.IntN(2000); at < len(out)-800; at += 3000 + rng.IntN(5000) {
		amp := 0.3 + 0.4*rng.Float64()
		for k := range 800 {
			out[at+k] += float32(amp * math.Exp(-float64(k)/60) * rng.NormFloat64())
		}
	}
	return out
}

// Breathing is slow breaths: low-passed noise swelling and fading about
// every 1.5 s.
func Breathing(seconds float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]float32, int(seconds*16000))
	var lp float64
	for i := range out {
		lp = 0.9*lp + 0.1*rng.NormFloat64()
		env := math.Pow(math.Max(0, math.Sin(2*math.Pi*float64(i)/16000/1.5)), 2)
		out[i] = float32(lp * env * 0.15)
	}
	return out
}

// Typing is someone typing at about eight keys a second: each key a press
// and a release, short bursts ringing at the keycap's pitch, over faint hiss.
func Typing(seconds float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 4))
	out := hiss(rng, seconds)
	burst := func(at int, amp, hz float64) {
		for k := 0; k < 640 && at+k < len(out); k++ {
			ring := math.Sin(2 * math.Pi * hz * float64(k) / 16000)
			out[at+k] += float32(amp * math.Exp(-float64(k)/80) * (0.6*rng.NormFloat64() + ring))
		}
	}
	for at := 1000 + rng.IntN(1000); at < len(out)-3000; at += 1200 + rng.IntN(1600) {
		hz := 1500 + 2500*rng.Float64()
		amp := 0.1 + 0.2*rng.Float64()
		burst(at, amp, hz)
		burst(at+800+rng.IntN(800), amp/2, hz*1.1) // the release
	}
	return out
}

// hiss is seconds of faint white noise, the floor that Clicks and Typing
// stand out from.
func hiss(rng *rand.Rand, seconds float64) []float32 {
	out := make([]float32, int(seconds*16000))
	for i := range out {
		out[i] = float32(rng.NormFloat64() * 0.001)
	}
	return out
}
