package audio

import (
	"math"
	"testing"
)

func sine(freq float64, rate, n int, amp float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return s
}

// toneLevel measures the amplitude and the phase-independent energy of freq
// in s (ignoring edges) by correlating with a quadrature pair.
func toneLevel(s []float32, freq float64, rate int) float64 {
	skip := len(s) / 10
	s = s[skip : len(s)-skip]
	var c, q float64
	for i, v := range s {
		ph := 2 * math.Pi * freq * float64(i) / float64(rate)
		c += float64(v) * math.Cos(ph)
		q += float64(v) * math.Sin(ph)
	}
	return 2 * math.Hypot(c, q) / float64(len(s))
}

func rms(s []float32) float64 {
	var e float64
	for _, v := range s {
		e += float64(v) * float64(v)
	}
	if len(s) == 0 {
		return 0
	}
	return math.Sqrt(e / float64(len(s)))
}

func TestResampleTone(t *testing.T) {
	tests := []struct {
		name     string
		from, to int
	}{
		{name: "44100 to 16000", from: 44100, to: 16000},
		{name: "48000 to 16000", from: 48000, to: 16000},
		{name: "22050 to 16000", from: 22050, to: 16000},
		{name: "8000 to 16000", from: 8000, to: 16000},
		{name: "32000 to 16000", from: 32000, to: 16000},
		{name: "44101 to 16000 (nearest phase)", from: 44101, to: 16000},
		{name: "16000 to 48000", from: 16000, to: 48000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := sine(1000, tc.from, tc.from, 0.5) // 1 s
			out := Resample(in, tc.from, tc.to)
			if want := tc.to; len(out) != want {
				t.Fatalf("len = %d, want %d", len(out), want)
			}
			got := toneLevel(out, 1000, tc.to)
			if db := 20 * math.Log10(got/0.5); math.Abs(db) > 0.5 {
				t.Errorf("1 kHz level %.4f (%.2f dB), want 0.5 within 0.5 dB", got, db)
			}
			// The tone must be at 1 kHz: a 10 Hz offset would decorrelate over 1 s.
			if off := toneLevel(out, 1010, tc.to); off > 0.05 {
				t.Errorf("energy at 1010 Hz = %.3f: frequency shifted", off)
			}
			// A tone above the lower Nyquist must not come through (alias or image).
			lower := min(tc.from, tc.to)
			hf := 0.5*float64(lower) + 0.1*float64(lower)
			if hf >= 0.5*float64(tc.from) {
				return // cannot be represented in the input
			}
			alias := Resample(sine(hf, tc.from, tc.from, 0.5), tc.from, tc.to)
			if db := 20 * math.Log10(rms(alias[len(alias)/10:len(alias)*9/10])/(0.5/math.Sqrt2)); db > -40 {
				t.Errorf("%.0f Hz tone attenuated only %.1f dB, want ≥ 40", hf, -db)
			}
		})
	}
}

func TestResampleLengths(t *testing.T) {
	tests := []struct {
		name          string
		n, from, to   int
		want          int
		wantNilResult bool
	}{
		{name: "empty", n: 0, from: 44100, to: 16000, want: 0},
		{name: "one sample", n: 1, from: 44100, to: 16000, want: 1},
		{name: "exact", n: 441, from: 44100, to: 16000, want: 160},
		{name: "round up", n: 442, from: 44100, to: 16000, want: 161},
		{name: "3 to 1", n: 48000 * 2, from: 48000, to: 16000, want: 32000},
		{name: "same rate copies", n: 100, from: 16000, to: 16000, want: 100},
		{name: "bad rate", n: 100, from: 0, to: 16000, wantNilResult: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := Resample(make([]float32, tc.n), tc.from, tc.to)
			if tc.wantNilResult {
				if out != nil {
					t.Fatalf("got %d samples, want nil", len(out))
				}
				return
			}
			if len(out) != tc.want {
				t.Fatalf("len = %d, want %d", len(out), tc.want)
			}
		})
	}
}

func TestResampleDCAndAlignment(t *testing.T) {
	// A step keeps its level and its position (the filter adds no delay).
	in := make([]float32, 44100)
	for i := 22050; i < len(in); i++ {
		in[i] = 1
	}
	out := Resample(in, 44100, 16000)
	if v := out[12000]; math.Abs(float64(v)-1) > 1e-3 {
		t.Errorf("level after step = %v, want 1", v)
	}
	if v := out[4000]; math.Abs(float64(v)) > 1e-3 {
		t.Errorf("level before step = %v, want 0", v)
	}
	// The band-limited step crosses 0.5 at input 22049.5 = output 7999.8.
	if out[7999] >= 0.5 || out[8000] <= 0.5 {
		t.Errorf("step crosses 0.5 away from output 7999.8 (out[7999]=%v, out[8000]=%v): delay", out[7999], out[8000])
	}
}

func BenchmarkResample(b *testing.B) {
	tests := []struct {
		name     string
		from, to int
	}{
		{name: "44100to16000", from: 44100, to: 16000},
		{name: "48000to16000", from: 48000, to: 16000},
		{name: "22050to16000", from: 22050, to: 16000},
	}
	for _, tc := range tests {
		in := sine(440, tc.from, 60*tc.from, 0.5) // 60 s
		b.Run(tc.name+"/60s", func(b *testing.B) {
			b.SetBytes(int64(len(in) * 4))
			for b.Loop() {
				Resample(in, tc.from, tc.to)
			}
		})
	}
}
