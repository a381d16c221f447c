package vad

import "testing"

// speechRange on made-up probabilities: faint windows count as speech when
// there are enough of them, and widen the speech when they adjoin it.
func TestSpeechRange(t *testing.T) {
	const n = 200 * Window // room for the 2 s of silence that ends a segment
	pad := sampleRate * TrimPadMs / 1000
	probs := func(set map[int]float32) []float32 {
		p := make([]float32, n/Window+1)
		for i, v := range set {
			p[i] = v
		}
		return p
	}
	span := func(from, to int) map[int]float32 {
		m := map[int]float32{}
		for i := from; i <= to; i++ {
			m[i] = 0.9
		}
		return m
	}
	with := func(m map[int]float32, i int, v float32) map[int]float32 { m[i] = v; return m }
	cases := []struct {
		name               string
		probs              []float32
		ok                 bool
		wantStart, wantEnd int
	}{
		{"nothing", probs(nil), false, 0, 0},
		{"one faint window is noise", probs(map[int]float32{40: 0.19}), false, 0, 0},
		{"faint windows below the bar", probs(map[int]float32{40: 0.12, 41: 0.12, 42: 0.12}), false, 0, 0},
		{"two faint windows are a whisper, kept whole", probs(map[int]float32{40: 0.15, 44: 0.14}), true, 0, n},
		{"clear speech", probs(span(50, 59)), true, 50*Window - pad, 60*Window + pad},
		{"a faint start next to it widens it", probs(with(with(span(50, 59), 40, 0.2), 30, 0.2)), true, 30*Window - pad, 60*Window + pad},
		{"a faint window far away does not", probs(with(span(50, 59), 10, 0.2)), true, 50*Window - pad, 60*Window + pad},
		{"a faint end widens it", probs(with(span(50, 59), 70, 0.2)), true, 50*Window - pad, 71*Window + pad},
		{"clamped to the audio", probs(span(0, 199)), true, 0, n},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start, end, ok, err := speechRange(tc.probs, n)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || (ok && (start != tc.wantStart || end != tc.wantEnd)) {
				t.Errorf("speechRange = [%d, %d) %v, want [%d, %d) %v", start, end, ok, tc.wantStart, tc.wantEnd, tc.ok)
			}
		})
	}
}
