package audio

import (
	"testing"
	"time"
)

// BenchmarkColdStartDefault is BenchmarkColdStartPulse on the system's
// default microphone with its own audio system (WASAPI on Windows, as under
// wine), for any machine: open_ms and first_sample_ms as there, and, while
// speech plays into that microphone (the caller plays it, on a loop),
// lost_ms against a recorder holding the microphone open with a pre-roll.
// Without speech the loss cannot be aligned and is not reported.
func BenchmarkColdStartDefault(b *testing.B) {
	const pre = 500 * time.Millisecond
	ref, err := New(Config{PreRoll: pre}, testLog(b))
	if err != nil {
		b.Skipf("no audio system: %v", err)
	}
	defer ref.Close()
	if _, err := ref.Microphone(); err != nil {
		b.Skipf("no microphone: %v", err)
	}
	cold := newRecorder(b, Config{})
	b.Logf("backend %s", cold.Backend())
	time.Sleep(time.Second) // the ring full
	var openSum, firstSum, lostSum time.Duration
	aligned := 0
	for b.Loop() {
		open, first, got, want := coldRound(b, ref, cold)
		openSum += open
		firstSum += first
		msg := "lost not measured (no speech)"
		if rms(got) > 0.01 {
			if lag, corr := align(want, got, SampleRate/2); corr >= 0.9 {
				lost := samplesDur(lag, SampleRate) - ref.Stats().PreRoll
				lostSum += lost
				aligned++
				msg = "lost " + lost.String()
			}
		}
		b.Logf("open %v, first sample %v, %s", open, first, msg)
		time.Sleep(500 * time.Millisecond) // the reference's ring refills
	}
	n := float64(b.N)
	b.ReportMetric(float64(openSum.Milliseconds())/n, "open_ms")
	b.ReportMetric(float64(firstSum.Milliseconds())/n, "first_sample_ms")
	if aligned > 0 {
		b.ReportMetric(float64(lostSum.Milliseconds())/float64(aligned), "lost_ms")
	}
}

// coldRound records one second cold (cold opened at the key press) beside
// the reference started just before it, and returns Start's own time, the
// time to the first sample, and both recordings.
func coldRound(b *testing.B, ref, cold *Recorder) (open, first time.Duration, got, want []float32) {
	b.Helper()
	if err := ref.Start(); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if err := cold.Start(); err != nil {
		b.Fatal(err)
	}
	open = time.Since(t0)
	time.Sleep(time.Second)
	got, err := cold.Stop()
	if err != nil {
		b.Fatal(err)
	}
	first = cold.Stats().FirstSampleLatency
	want, err = ref.Stop()
	if err != nil {
		b.Fatal(err)
	}
	return open, first, got, want
}
