//go:build linux

package audio

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

func requirePulse(t testing.TB) {
	t.Helper()
	requireTool(t, "pactl")
	requireTool(t, "paplay")
	if out, err := exec.Command("pactl", "info").CombinedOutput(); err != nil {
		testenv.Require(t, fmt.Sprintf("a PulseAudio server (pactl info: %v: %s)", err, strings.Join(strings.Fields(string(out)), " ")),
			"pulseaudio --start --exit-idle-time=-1 with XDG_RUNTIME_DIR set, as the CI setup script does (go-stack.md §4)")
	}
}

// privateSink loads a null sink of its own, so that other tests playing into
// the shared vmic sink cannot disturb this one, and returns its sink name and
// the description its monitor source carries ("Monitor of <description>").
func privateSink(t testing.TB, rate, channels int) (sink, desc string) {
	t.Helper()
	n := time.Now().UnixNano() % 1e9
	sink = fmt.Sprintf("wk_audiotest_%d_%d", os.Getpid(), n)
	desc = fmt.Sprintf("WKAudioTest%d-%d", os.Getpid(), n)
	out, err := exec.Command("pactl", "load-module", "module-null-sink", "sink_name="+sink,
		fmt.Sprintf("rate=%d", rate), fmt.Sprintf("channels=%d", channels),
		"sink_properties=device.description="+desc).CombinedOutput()
	if err != nil {
		t.Fatalf("load null sink: %v: %s", err, out)
	}
	module := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("pactl", "unload-module", module).CombinedOutput(); err != nil {
			t.Errorf("unload null sink %s: %v: %s", module, err, out)
		}
	})
	return sink, desc
}

// speech writes an espeak-ng utterance and returns its path and its 16 kHz samples.
func speech(t testing.TB, text string) (string, []float32) {
	t.Helper()
	requireTool(t, "espeak-ng")
	path := filepath.Join(t.TempDir(), "speech.wav")
	if out, err := exec.Command("espeak-ng", "-w", path, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	ref, err := DecodeFile(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return path, ref
}

func segmentCorr(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func TestCapturePulseSpeech(t *testing.T) {
	requirePulse(t)
	path, ref := speech(t, "Hello world, this is a dictation test.")
	sink, desc := privateSink(t, 16000, 1)

	// Cold start (no pre-roll): the device opens in Start.
	r := newRecorder(t, Config{Device: desc, PreRoll: 0})
	if err := r.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if r.Level() != 0 {
		t.Errorf("Level() = %v before any sound, want 0", r.Level())
	}
	// While the speech plays, the indicator's level follows it.
	play := exec.Command("paplay", "-d", sink, path)
	if err := play.Start(); err != nil {
		t.Fatalf("paplay: %v", err)
	}
	played := make(chan error, 1)
	go func() { played <- play.Wait() }()
	var peak float32
sample:
	for {
		peak = max(peak, r.Level())
		select {
		case err := <-played:
			if err != nil {
				t.Fatalf("paplay: %v", err)
			}
			break sample
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Logf("peak level while speaking: %.2f", peak)
	if peak < 0.4 {
		t.Errorf("peak Level() %.2f while speech plays, want ≥ 0.4 (about -36 dBFS)", peak)
	}
	time.Sleep(300 * time.Millisecond)
	got, err := r.Stop()
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	st := r.Stats()
	// A null-sink monitor delivers only while the sink renders, so the
	// length is not asserted; the content is.
	lag, corr := align(got, ref, len(ref)/2)
	t.Logf("captured %d samples (%v) from %q, rms %.3f (reference %.3f), corr %.3f at lag %d, first sample after %v",
		len(got), st.Duration, st.Device, rms(got), rms(ref), corr, lag, st.FirstSampleLatency)
	if !strings.Contains(st.Device, desc) {
		t.Errorf("recorded from %q, want the monitor of %q", st.Device, desc)
	}
	if corr < 0.9 {
		t.Errorf("correlation with the played speech %.3f, want ≥ 0.9", corr)
	}
	if rms(got) < 0.01 {
		t.Errorf("rms %.4f: the capture is (nearly) silent", rms(got))
	}
	if l := r.Level(); l != 0 {
		t.Errorf("Level() = %v after Stop, want 0", l)
	}
}

func TestCapturePulsePreRoll(t *testing.T) {
	requirePulse(t)
	path, ref := speech(t, "Seven silver spoons were placed on the wooden table near the open window")
	// 48 kHz stereo: miniaudio converts to 16 kHz mono.
	sink, desc := privateSink(t, 48000, 2)

	r := newRecorder(t, Config{Device: desc, PreRoll: 500 * time.Millisecond})
	play := exec.Command("paplay", "-d", sink, path)
	if err := play.Start(); err != nil {
		t.Fatalf("paplay: %v", err)
	}
	// Start in the middle of the sentence, as a user who begins speaking a
	// moment before the hotkey registers: once speech fills the pre-roll
	// buffer (paplay's start-up time varies with the machine's load).
	waitForSpeech(t, r)
	time.Sleep(500 * time.Millisecond)
	if err := r.Start(); err != nil {
		_ = play.Wait()
		t.Fatalf("Start: %v", err)
	}
	if err := play.Wait(); err != nil {
		t.Fatalf("paplay: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	got, err := r.Stop()
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	st := r.Stats()
	preN := int(st.PreRoll.Seconds() * SampleRate)
	lag, corr := align(got, ref, SampleRate)
	t.Logf("captured %d samples, pre-roll %v (%d samples), corr %.3f at lag %d, first sample after %v",
		len(got), st.PreRoll, preN, corr, lag, st.FirstSampleLatency)
	if st.PreRoll < 250*time.Millisecond {
		t.Fatalf("pre-roll %v, want about 500ms of audio from before Start", st.PreRoll)
	}
	if corr < 0.9 {
		t.Fatalf("correlation with the played speech %.3f, want ≥ 0.9", corr)
	}
	// The recording must begin inside the sentence (Start came after the
	// speech began) and its pre-roll part must be that earlier speech.
	at := -lag // reference index of the first captured sample
	if at <= 0 || at+preN > len(ref) {
		t.Fatalf("recording starts at reference sample %d: Start was not called during the speech", at)
	}
	pre, want := got[:preN], ref[at:at+preN]
	if rms(want) < 0.02 {
		t.Fatalf("the reference is quiet where the pre-roll lands (rms %.3f); adjust the test timing", rms(want))
	}
	if c := segmentCorr(pre, want); c < 0.9 || rms(pre) < 0.01 {
		t.Fatalf("pre-roll audio: corr %.3f rms %.3f with the speech played before Start, want corr ≥ 0.9", c, rms(pre))
	}
}

// waitForSpeech waits until the recorder's pre-roll buffer is full of sound.
func waitForSpeech(t *testing.T, r *Recorder) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		full := r.ring.n > 0 && r.ring.n == len(r.ring.buf)
		level := rms(r.ring.appendLast(nil, r.ring.n))
		fresh := time.Since(r.ringAt) < 100*time.Millisecond
		r.mu.Unlock()
		if full && fresh && level > 0.03 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no speech reached the recorder within 30s")
}

func TestDevicesPulse(t *testing.T) {
	requirePulse(t)
	_, desc := privateSink(t, 16000, 1)
	r := newRecorder(t, Config{PreRoll: 0})
	devs, err := r.Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	var found, dflt bool
	for _, d := range devs {
		t.Logf("device %q id=%s default=%v", d.Name, d.ID, d.Default)
		found = found || strings.Contains(d.Name, desc)
		dflt = dflt || d.Default
	}
	if !found {
		t.Errorf("the monitor of %q is not listed", desc)
	}
	if !dflt {
		t.Errorf("no device is marked default")
	}
}

// Reconfigure moves the recorder to another microphone and length limit
// without a new Recorder: a missing device is reported as lost, a good one
// as restored, and a change during a recording waits for its end.
func TestReconfigurePulse(t *testing.T) {
	requirePulse(t)
	_, desc := privateSink(t, 16000, 1)
	r := newRecorder(t, Config{Device: desc, PreRoll: 200 * time.Millisecond})

	if err := r.Reconfigure(Config{Device: "no such microphone", PreRoll: 200 * time.Millisecond}); err != nil {
		t.Fatalf("Reconfigure to a missing device: %v", err)
	}
	if ev := waitEvent(t, r, EventDeviceLost, 5*time.Second); ev.Device != "no such microphone" {
		t.Fatalf("lost event names %q", ev.Device)
	}
	if err := r.Reconfigure(Config{Device: desc, PreRoll: 200 * time.Millisecond, MaxDuration: 300 * time.Millisecond}); err != nil {
		t.Fatalf("Reconfigure back: %v", err)
	}
	if ev := waitEvent(t, r, EventDeviceRestored, 5*time.Second); !strings.Contains(ev.Device, desc) {
		t.Fatalf("restored event names %q, want the monitor of %q", ev.Device, desc)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	// Asked mid-recording: applies when it ends, not now.
	if err := r.Reconfigure(Config{Device: "no such microphone", PreRoll: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, r, EventLimit, 5*time.Second) // the new 300 ms limit is in force
	if _, err := r.Stop(); err != nil {
		t.Fatalf("Stop after a pending Reconfigure: %v", err)
	}
	if !strings.Contains(r.Stats().Device, desc) {
		t.Fatalf("recorded from %q, want %q (the change waited for the recording's end)", r.Stats().Device, desc)
	}
	waitEvent(t, r, EventDeviceLost, 5*time.Second)
	if err := r.Reconfigure(Config{PreRoll: -time.Second}); err == nil {
		t.Fatal("Reconfigure accepted a negative pre-roll")
	}
}
