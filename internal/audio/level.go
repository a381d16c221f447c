package audio

import "math"

// levelWindow is how much of the newest audio Level measures: short enough to follow
// syllables on the indicator, long enough to hold a few periods of a low voice.
const levelWindow = 50 // milliseconds

// Level is the loudness of the newest 50 ms of the recording in progress, 0 (silence
// or not recording) to 1 (full scale), on a -60..0 dBFS scale: what the recording
// indicator's bar shows. Cheap enough to call 30 times a second.
func (r *Recorder) Level() float32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != recording || r.n == 0 {
		return 0
	}
	want := max(r.rate, SampleRate) * levelWindow / 1000
	var sum float64
	n := 0
	for i := len(r.chunks) - 1; i >= 0 && n < want; i-- {
		c := r.chunks[i]
		for j := len(c) - 1; j >= 0 && n < want; j-- {
			sum += float64(c[j]) * float64(c[j])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return LevelFromRMS(math.Sqrt(sum / float64(n)))
}

// LevelFromRMS maps an RMS amplitude (full scale 1) to 0..1 over -60..0 dBFS.
func LevelFromRMS(rms float64) float32 {
	if rms <= 0 {
		return 0
	}
	db := 20 * math.Log10(rms)
	return float32(max(0, min(1, (db+60)/60)))
}
