package whisper

import "testing"

// Segments end within the audio; earlier ones are left alone.
func TestWithinAudio(t *testing.T) {
	in := []Segment{{Start: 0, End: 1.2}, {Start: 1.2, End: 2.0}, {Start: 1.5, End: 2.4}}
	got := WithinAudio(in, 1.39)
	want := [][2]float64{{0, 1.2}, {1.2, 1.39}, {1.39, 1.39}}
	for i, w := range want {
		if got[i].Start != w[0] || got[i].End != w[1] {
			t.Errorf("segment %d: %.2f–%.2f, want %.2f–%.2f", i, got[i].Start, got[i].End, w[0], w[1])
		}
	}
	if in[1].End != 2.0 {
		t.Error("WithinAudio changed the engine's result")
	}
	if got := WithinAudio(in, 0); got[1].End != 2.0 {
		t.Error("an unknown duration (0) clamped the segments")
	}
}
