package audio

import (
	"math"
	"testing"
)

func TestLevelFromRMS(t *testing.T) {
	tests := []struct {
		rms  float64
		want float32
	}{
		{0, 0},
		{0.0001, 0}, // -80 dBFS: below the scale
		{0.001, 0},  // -60 dBFS
		{0.01, 1.0 / 3},
		{0.1, 2.0 / 3},
		{1, 1},
		{2, 1},
	}
	for _, tt := range tests {
		if got := LevelFromRMS(tt.rms); math.Abs(float64(got-tt.want)) > 1e-6 {
			t.Errorf("LevelFromRMS(%v) = %v, want %v", tt.rms, got, tt.want)
		}
	}
}
