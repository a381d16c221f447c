package whisper

import (
	"fmt"
	"math"
)

// cfft is a precomputed mixed-radix (4, 2, 3, 5, then any prime) forward
// complex FFT plan. It is immutable after newCFFT, so one plan may be shared by
// goroutines that each bring their own output buffer.
type cfft struct {
	n       int
	factors []int
	w       []complex128 // w[j] = exp(-2πi·j/n)
	c5, s5  [2]float64   // cos and sin of 2π/5 and 4π/5 for the radix-5 butterfly
}

func newCFFT(n int) *cfft {
	if n < 1 {
		panic(fmt.Sprintf("whisper: FFT size %d < 1", n))
	}
	p := &cfft{n: n, w: make([]complex128, n)}
	p.c5 = [2]float64{math.Cos(2 * math.Pi / 5), math.Cos(4 * math.Pi / 5)}
	p.s5 = [2]float64{math.Sin(2 * math.Pi / 5), math.Sin(4 * math.Pi / 5)}
	for j := range n {
		s, c := math.Sincos(-2 * math.Pi * float64(j) / float64(n))
		p.w[j] = complex(c, s)
	}
	for m := n; m > 1; {
		f := 0
		for _, cand := range []int{4, 2, 3, 5} {
			if m%cand == 0 {
				f = cand
				break
			}
		}
		if f == 0 {
			for f = 7; m%f != 0; f += 2 {
			}
		}
		p.factors = append(p.factors, f)
		m /= f
	}
	return p
}

// transform writes the DFT of in (length n) to out (length n).
func (p *cfft) transform(out, in []complex128) {
	p.rec(out[:p.n], in, 1, 0)
}

// rec is one decimation-in-time stage: the input elements in[0], in[stride],
// … (n = len(out) of them) are split into radix sub-sequences whose
// transforms land in consecutive blocks of out, then combined in place.
func (p *cfft) rec(out, in []complex128, stride, fi int) {
	n := len(out)
	if n == 1 {
		out[0] = in[0]
		return
	}
	radix := p.factors[fi]
	m := n / radix
	if m == 1 {
		for r := range radix {
			out[r] = in[r*stride]
		}
	} else {
		for r := range radix {
			p.rec(out[r*m:(r+1)*m], in[r*stride:], stride*radix, fi+1)
		}
	}
	// W_n^e = w[e·stride] since n·stride == p.n.
	switch radix {
	case 2:
		for k := range m {
			a0 := out[k]
			a1 := out[k+m] * p.w[k*stride]
			out[k], out[k+m] = a0+a1, a0-a1
		}
	case 4:
		for k := range m {
			a0 := out[k]
			a1 := out[k+m] * p.w[k*stride]
			a2 := out[k+2*m] * p.w[2*k*stride]
			a3 := out[k+3*m] * p.w[3*k*stride]
			s02, d02 := a0+a2, a0-a2
			s13, d13 := a1+a3, a1-a3
			jd13 := complex(imag(d13), -real(d13)) // −i·(a1−a3)
			out[k] = s02 + s13
			out[k+m] = d02 + jd13
			out[k+2*m] = s02 - s13
			out[k+3*m] = d02 - jd13
		}
	case 5:
		c1, c2, s1, s2 := p.c5[0], p.c5[1], p.s5[0], p.s5[1]
		for k := range m {
			a0 := out[k]
			a1 := out[k+m] * p.w[k*stride]
			a2 := out[k+2*m] * p.w[2*k*stride]
			a3 := out[k+3*m] * p.w[3*k*stride]
			a4 := out[k+4*m] * p.w[4*k*stride]
			b1, b2 := a1+a4, a2+a3
			d1, d2 := a1-a4, a2-a3
			r1 := a0 + complex(c1, 0)*b1 + complex(c2, 0)*b2
			r2 := a0 + complex(c2, 0)*b1 + complex(c1, 0)*b2
			i1 := complex(s1, 0)*d1 + complex(s2, 0)*d2
			i2 := complex(s2, 0)*d1 - complex(s1, 0)*d2
			// multiply by −i: (x+iy)·(−i) = y − ix
			mi1 := complex(imag(i1), -real(i1))
			mi2 := complex(imag(i2), -real(i2))
			out[k] = a0 + b1 + b2
			out[k+m] = r1 + mi1
			out[k+4*m] = r1 - mi1
			out[k+2*m] = r2 + mi2
			out[k+3*m] = r2 - mi2
		}
	default:
		var buf [16]complex128
		t := buf[:0]
		if radix > len(buf) {
			t = make([]complex128, 0, radix)
		}
		t = t[:radix]
		for k := range m {
			for r := range radix {
				t[r] = out[k+r*m] * p.w[(r*k*stride)%p.n]
			}
			for q := range radix {
				var s complex128
				for r := range radix {
					s += t[r] * p.w[(r*q*m*stride)%p.n]
				}
				out[k+q*m] = s
			}
		}
	}
}

// rfft computes the one-sided power spectrum of a real frame of even length n
// through one complex FFT of length n/2.
type rfft struct {
	n    int
	half *cfft
	tw   []complex128 // tw[k] = exp(-2πi·k/n), k ≤ n/2
}

func newRFFT(n int) *rfft {
	if n < 2 || n%2 != 0 {
		panic(fmt.Sprintf("whisper: real FFT size %d must be even and ≥ 2", n))
	}
	r := &rfft{n: n, half: newCFFT(n / 2), tw: make([]complex128, n/2+1)}
	for k := range r.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		r.tw[k] = complex(c, s)
	}
	return r
}

// rfftScratch holds one goroutine's buffers for rfft.power.
type rfftScratch struct {
	z, zf []complex128
}

func (r *rfft) scratch() *rfftScratch {
	return &rfftScratch{z: make([]complex128, r.n/2), zf: make([]complex128, r.n/2)}
}

// power writes |X[k]|² for k = 0…n/2 of the real input x (length n) into
// out (length n/2+1).
func (r *rfft) power(out []float64, x []float64, s *rfftScratch) {
	h := r.n / 2
	for i := range h {
		s.z[i] = complex(x[2*i], x[2*i+1])
	}
	r.half.transform(s.zf, s.z)
	z := s.zf
	for k := 0; k <= h; k++ {
		zk := z[k%h]
		zc := z[(h-k)%h]
		zc = complex(real(zc), -imag(zc))
		even := (zk + zc) * 0.5
		odd := (zk - zc) * complex(0, -0.5) // (zk − conj z[h−k]) / 2i
		x := even + r.tw[k]*odd
		out[k] = real(x)*real(x) + imag(x)*imag(x)
	}
}
