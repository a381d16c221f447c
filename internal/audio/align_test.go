package audio

import (
	"math"
	"math/cmplx"
)

// align finds the lag at which capt best matches ref (capt[i+lag] ≈ ref[i])
// by normalised cross-correlation over overlaps of at least minOverlap samples.
func align(capt, ref []float32, minOverlap int) (lag int, corr float64) {
	n := 1
	for n < len(capt)+len(ref) {
		n <<= 1
	}
	x := make([]complex128, n)
	y := make([]complex128, n)
	for i, v := range capt {
		x[i] = complex(float64(v), 0)
	}
	for i, v := range ref {
		y[i] = complex(float64(v), 0)
	}
	fft(x, false)
	fft(y, false)
	for i := range x {
		x[i] *= cmplx.Conj(y[i])
	}
	fft(x, true)
	pc := prefixEnergy(capt)
	pr := prefixEnergy(ref)
	corr = -2
	for l := -(len(ref) - 1); l < len(capt); l++ {
		lo, hi := max(0, -l), min(len(ref), len(capt)-l) // ref indices overlapping
		if hi-lo < minOverlap {
			continue
		}
		er := pr[hi] - pr[lo]
		ec := pc[hi+l] - pc[lo+l]
		if er <= 0 || ec <= 0 {
			continue
		}
		v := real(x[(l+n)%n]) / math.Sqrt(er*ec)
		if v > corr {
			lag, corr = l, v
		}
	}
	return lag, corr
}

func prefixEnergy(s []float32) []float64 {
	p := make([]float64, len(s)+1)
	for i, v := range s {
		p[i+1] = p[i] + float64(v)*float64(v)
	}
	return p
}

// fft is an in-place radix-2 transform; the inverse is scaled by 1/n.
func fft(a []complex128, inverse bool) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		ang := 2 * math.Pi / float64(size)
		if !inverse {
			ang = -ang
		}
		w := cmplx.Rect(1, ang)
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := range size / 2 {
				u, v := a[start+k], a[start+k+size/2]*wk
				a[start+k], a[start+k+size/2] = u+v, u-v
				wk *= w
			}
		}
	}
	if inverse {
		for i := range a {
			a[i] /= complex(float64(n), 0)
		}
	}
}
