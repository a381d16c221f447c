package testenv

import (
	"bytes"
	"encoding/binary"
	"math"
	"os/exec"
	"strconv"
	"testing"
)

// Speech as microphones hear it when nobody tuned for it: faint, far away,
// overdriven. Each returns a new slice of 16 kHz samples.

// AtPeak scales samples so that their loudest sample is at dbfs (e.g. -30).
func AtPeak(samples []float32, dbfs float64) []float32 {
	var peak float64
	for _, v := range samples {
		peak = max(peak, math.Abs(float64(v)))
	}
	out := make([]float32, len(samples))
	if peak == 0 {
		return out
	}
	g := math.Pow(10, dbfs/20) / peak
	for i, v := range samples {
		out[i] = float32(float64(v) * g)
	}
	return out
}

// Clipped amplifies samples by db and cuts them at full scale, as an
// overdriven microphone input does.
func Clipped(samples []float32, db float64) []float32 {
	g := float32(math.Pow(10, db/20))
	out := make([]float32, len(samples))
	for i, v := range samples {
		out[i] = max(-1, min(1, v*g))
	}
	return out
}

// FarField is speech from across a room: sox's reverb (reverberance
// percent) with a second of tail, its peak then set to dbfs.
func FarField(t testing.TB, samples []float32, reverberance int, dbfs float64) []float32 {
	t.Helper()
	if _, err := exec.LookPath("sox"); err != nil {
		Require(t, "sox", "make deps (apt-get install sox)")
	}
	var in bytes.Buffer
	if err := binary.Write(&in, binary.LittleEndian, samples); err != nil {
		t.Fatal(err)
	}
	raw := []string{"-t", "f32", "-r", "16000", "-c", "1"}
	args := append(append(append(raw, "-"), raw...), "-", "gain", "-6", "pad", "0", "1",
		"reverb", strconv.Itoa(reverberance), "50", "100", "gain", "-n", strconv.FormatFloat(dbfs, 'f', 1, 64))
	cmd := exec.Command("sox", args...)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sox reverb: %v", err)
	}
	return f32s(out)
}
