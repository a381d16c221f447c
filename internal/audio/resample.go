package audio

import (
	"math"
)

// Filter design of Resample. The stopband starts at the Nyquist frequency of
// the lower rate, so nothing aliases above −resampleAtten; the transition
// band is the top resampleTransition of that band (for 16 kHz output: flat
// to 6.4 kHz, −6 dB at 7.2 kHz, −60 dB from 8 kHz). Speech recognition barely
// uses that band, and a filter this short (≈100 taps at 44.1 kHz) resamples
// a minute of audio in about 50 ms.
const (
	resampleAtten      = 60.0 // stopband attenuation, dB
	resampleTransition = 0.2  // transition width as a fraction of the lower Nyquist
	// maxPhases bounds the coefficient table for awkward ratios such as
	// 44101→16000; beyond it the nearest of maxPhases phases is used, a
	// timing error of at most 1/(2·maxPhases) input sample (below −70 dB).
	maxPhases = 4096
	// maxHalfTaps and maxCoefs bound the filter at extreme ratios (1 MHz to
	// 16 kHz wants ≈4500 taps): the table and the work per output sample
	// stay bounded whatever rate a file declares. Up to about 450 kHz the
	// filter is as designed; above, its transition band widens.
	maxHalfTaps = 512
	maxCoefs    = 1 << 18
)

// Resample converts mono samples at rate from to rate to with a
// Kaiser-windowed sinc low-pass applied in polyphase form, so rational
// ratios such as 44100→16000 (160/441) are computed exactly and
// downsampling is anti-aliased. The output has ceil(len(in)·to/from) samples
// and no delay. Resample returns a copy when the rates are equal and nil
// when a rate is not positive.
func Resample(in []float32, from, to int) []float32 {
	if from <= 0 || to <= 0 {
		return nil
	}
	if from == to {
		return append([]float32(nil), in...)
	}
	g := gcd(from, to)
	up, down := to/g, from/g // output time n is input time n·down/up
	nOut := int((int64(len(in))*int64(up) + int64(down) - 1) / int64(down))
	out := make([]float32, nOut)
	if nOut == 0 {
		return out
	}
	f := newPolyphase(from, to, up)
	f.run(in, out, up, down)
	return out
}

// polyphase holds one row of taps per fractional output position.
type polyphase struct {
	phases int       // rows in coef
	taps   int       // taps per row (even)
	half   int       // taps/2: row p covers inputs i-half+1 … i+half
	coef   []float32 // phases × taps
}

func newPolyphase(from, to, up int) *polyphase {
	lower := min(from, to)
	// Cutoff relative to the input Nyquist, in the middle of the transition band.
	edge := float64(lower) / float64(from) // stopband edge, relative to input Nyquist
	cut := edge * (1 - resampleTransition/2)
	dw := math.Pi * edge * resampleTransition // transition width, rad per input sample
	order := (resampleAtten - 7.95) / (2.285 * dw)
	half := min(int(math.Ceil(order/2))+1, maxHalfTaps)
	beta := 0.1102 * (resampleAtten - 8.7)

	taps := 2 * half
	phases := min(up, maxPhases, max(16, maxCoefs/taps))
	f := &polyphase{phases: phases, taps: taps, half: half, coef: make([]float32, phases*taps)}
	i0beta := besselI0(beta)
	for p := range phases {
		frac := float64(p) / float64(phases)
		row := f.coef[p*taps : (p+1)*taps]
		var sum float64
		for j := range row {
			// Distance in input samples from the output instant to input i-half+1+j.
			t := frac + float64(half-1-j)
			x := t / float64(half)
			var w float64
			if x > -1 && x < 1 {
				w = besselI0(beta*math.Sqrt(1-x*x)) / i0beta
			}
			v := cut * sinc(cut*t) * w
			row[j] = float32(v)
			sum += v
		}
		// Unity gain at DC for every phase, so slow signals carry no phase ripple.
		for j := range row {
			row[j] = float32(float64(row[j]) / sum)
		}
	}
	return f
}

func (f *polyphase) run(in, out []float32, up, down int) {
	step, stepFrac := down/up, down%up
	i, frac := 0, 0 // output n sits at input i + frac/up
	lo, hi := f.half-1, len(in)-f.half
	for n := range out {
		p := frac
		base := i
		if f.phases != up {
			p = int((int64(frac)*int64(f.phases) + int64(up/2)) / int64(up))
			if p == f.phases {
				p = 0
				base++
			}
		}
		row := f.coef[p*f.taps : (p+1)*f.taps]
		if base >= lo && base < hi {
			out[n] = dot(row, in[base-f.half+1:base+f.half+1])
		} else {
			out[n] = edgeDot(row, in, base-f.half+1)
		}
		i += step
		frac += stepFrac
		if frac >= up {
			frac -= up
			i++
		}
	}
}

// dot is the inner product of equal-length slices, unrolled for speed.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i <= len(a)-4; i += 4 {
		x, y := (*[4]float32)(a[i:]), (*[4]float32)(b[i:])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// edgeDot is dot for rows hanging over either end of in, where samples are zero.
func edgeDot(row, in []float32, start int) float32 {
	var s float32
	for j, c := range row {
		if k := start + j; k >= 0 && k < len(in) {
			s += c * in[k]
		}
	}
	return s
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the modified Bessel function of order zero (power series).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 200; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-12 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
