//go:build linux

package audio

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// loadMic loads a null sink named sink whose monitor is the microphone desc
// and returns its module number.
func loadMic(t *testing.T, sink, desc string) string {
	t.Helper()
	out, err := exec.Command("pactl", "load-module", "module-null-sink", "sink_name="+sink,
		"rate=16000", "channels=1", "sink_properties=device.description="+desc).CombinedOutput()
	if err != nil {
		t.Fatalf("load null sink: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func unloadMic(t *testing.T, module string) {
	t.Helper()
	if out, err := exec.Command("pactl", "unload-module", module).CombinedOutput(); err != nil {
		t.Errorf("unload %s: %v: %s", module, err, out)
	}
}

// The named microphone (a null sink's monitor) is unloaded while open:
// PulseAudio moves the stream elsewhere rather than stopping it, yet the
// recorder reports the microphone lost (it is no longer listed), reports it
// back once the sink returns, records again, and closes promptly although
// the returned source is silent (miniaudio's Uninit alone waits forever then).
func TestNamedMicrophoneUnloadedAndBack(t *testing.T) {
	requirePulse(t)
	stamp := time.Now().UnixNano() % 1e9
	sink, desc := fmt.Sprintf("wk_losttest_%d_%d", os.Getpid(), stamp), fmt.Sprintf("WKLostMic%d", stamp)
	module := loadMic(t, sink, desc)
	r, err := New(Config{Device: desc, PreRoll: 200 * time.Millisecond, RetryInterval: 200 * time.Millisecond}, testLog(t))
	if err != nil {
		unloadMic(t, module)
		t.Fatal(err)
	}
	play := exec.Command("pacat", "--playback", "-d", sink, "--rate=16000", "--channels=1", "--format=s16le")
	play.Stdin, _ = os.Open("/dev/zero")
	if err := play.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = play.Process.Kill(); _ = play.Wait() }()
	time.Sleep(500 * time.Millisecond)

	unloadMic(t, module)
	lost := waitEvent(t, r, EventDeviceLost, 10*time.Second)
	if !strings.Contains(lost.Device, desc) {
		t.Errorf("lost event names %q, want the microphone %q", lost.Device, desc)
	}
	module = loadMic(t, sink, desc)
	defer unloadMic(t, module)
	back := waitEvent(t, r, EventDeviceRestored, 10*time.Second)
	if !strings.Contains(back.Device, desc) {
		t.Errorf("restored event names %q, want the microphone %q", back.Device, desc)
	}
	if err := r.Start(); err != nil {
		t.Fatalf("Start after the microphone came back: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := r.Stop(); err != nil {
		t.Fatalf("Stop after the microphone came back: %v", err)
	}
	closed := make(chan error, 1)
	start := time.Now()
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
		t.Logf("closed in %v", time.Since(start).Round(time.Millisecond))
	case <-time.After(uninitTimeout):
		// Within the bound, so the device really closed rather than being
		// abandoned: the sink is silent now (its player went with the unload).
		t.Fatalf("Close took over %v after the microphone was lost and came back", uninitTimeout)
	}
}

// silence plays zeros into sink as a real microphone delivers audio all the
// time (a null sink's monitor runs only while something plays); the test's
// cleanup stops it.
func silence(t *testing.T, sink string) {
	t.Helper()
	play := exec.Command("pacat", "--playback", "-d", sink, "--rate=16000", "--channels=1", "--format=s16le", "--latency-msec=100")
	play.Stdin, _ = os.Open("/dev/zero")
	if err := play.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = play.Process.Kill(); _ = play.Wait() })
}

// setDefaultSource makes source PulseAudio's default; the test's cleanup puts
// the one before back.
func setDefaultSource(t *testing.T, source string) {
	t.Helper()
	prev, err := exec.Command("pactl", "get-default-source").Output()
	if err != nil {
		t.Fatalf("pactl get-default-source: %v", err)
	}
	if out, err := exec.Command("pactl", "set-default-source", source).CombinedOutput(); err != nil {
		t.Fatalf("pactl set-default-source %s: %v: %s", source, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("pactl", "set-default-source", strings.TrimSpace(string(prev))).Run() })
}

// record records while wav plays into sink ("" plays nothing for a moment)
// and returns the samples, the recording's device and Stop's error.
func record(t *testing.T, r *Recorder, sink, wav string) ([]float32, string, error) {
	t.Helper()
	if err := r.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if wav != "" {
		if out, err := exec.Command("paplay", "--latency-msec=200", "-d", sink, wav).CombinedOutput(); err != nil {
			t.Fatalf("paplay: %v: %s", err, out)
		}
	}
	time.Sleep(300 * time.Millisecond)
	got, err := r.Stop()
	return got, r.Stats().Device, err
}

func peak(s []float32) float32 {
	var p float32
	for _, v := range s {
		p = max(p, v, -v)
	}
	return p
}

// With no microphone configured the recorder follows PulseAudio's default
// source: a new one made default and the old one unloaded is announced by
// name, and the next recording hears the new one.
func TestDefaultMicrophoneFollowed(t *testing.T) {
	requirePulse(t)
	stamp := time.Now().UnixNano() % 1e9
	sinkA, descA := fmt.Sprintf("wk_defA_%d_%d", os.Getpid(), stamp), fmt.Sprintf("WKDefaultA%d", stamp)
	sinkB, descB := fmt.Sprintf("wk_defB_%d_%d", os.Getpid(), stamp), fmt.Sprintf("WKDefaultB%d", stamp)
	moduleA := loadMic(t, sinkA, descA)
	silence(t, sinkA)
	setDefaultSource(t, sinkA+".monitor")
	r := newRecorder(t, Config{PreRoll: 200 * time.Millisecond, RetryInterval: 200 * time.Millisecond})
	if _, dev, err := record(t, r, "", ""); err != nil || !strings.Contains(dev, descA) {
		t.Fatalf("first recording: device %q, %v; want %s", dev, err, descA)
	}

	moduleB := loadMic(t, sinkB, descB)
	defer unloadMic(t, moduleB)
	silence(t, sinkB)
	setDefaultSource(t, sinkB+".monitor")
	unloadMic(t, moduleA)
	ev := waitEvent(t, r, EventDeviceChanged, 10*time.Second)
	if !strings.Contains(ev.Device, descB) || !strings.Contains(ev.Was, descA) {
		t.Fatalf("changed event: %q (was %q), want %s (was %s)", ev.Device, ev.Was, descB, descA)
	}
	wav, _ := speech(t, "testing the new microphone")
	got, dev, err := record(t, r, sinkB, wav)
	if err != nil || !strings.Contains(dev, descB) {
		t.Fatalf("recording after the change: device %q, %v; want %s", dev, err, descB)
	}
	if p := peak(got); p < 0.05 {
		t.Fatalf("recording after the change peaks at %.3f: the new default's speech was not heard", p)
	}
}

// A configured microphone unloaded mid-recording ends that recording: Stop
// returns what was captured before (nothing from the stand-in) with
// ErrDeviceLost; the default stands in until the microphone returns, which
// is announced and used again.
func TestNamedMicrophoneLostMidRecording(t *testing.T) {
	requirePulse(t)
	stamp := time.Now().UnixNano() % 1e9
	sink, desc := fmt.Sprintf("wk_midrec_%d_%d", os.Getpid(), stamp), fmt.Sprintf("WKMidRec%d", stamp)
	module := loadMic(t, sink, desc)
	silence(t, sink)
	r := newRecorder(t, Config{Device: desc, PreRoll: 200 * time.Millisecond, RetryInterval: 200 * time.Millisecond})
	wav, _ := speech(t, "the first half of a sentence")

	start := time.Now()
	if err := r.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if out, err := exec.Command("paplay", "--latency-msec=200", "-d", sink, wav).CombinedOutput(); err != nil {
		t.Fatalf("paplay: %v: %s", err, out)
	}
	unloadMic(t, module)
	lostAt := time.Since(start)
	waitEvent(t, r, EventDeviceLost, 10*time.Second)
	standIn := waitEvent(t, r, EventDeviceChanged, 10*time.Second)
	if standIn.Device == "" || strings.Contains(standIn.Device, desc) || !strings.Contains(standIn.Was, desc) {
		t.Fatalf("stand-in event %q (was %q), want the default instead of %s", standIn.Device, standIn.Was, desc)
	}
	time.Sleep(time.Second) // the stand-in delivers meanwhile; none of it may join the recording
	got, err := r.Stop()
	if !errors.Is(err, ErrDeviceLost) {
		t.Fatalf("Stop: %v, want ErrDeviceLost", err)
	}
	if p := peak(got); p < 0.05 {
		t.Fatalf("the speech captured before the loss is missing (peak %.3f)", p)
	}
	if d, most := r.Stats().Duration, lostAt+time.Second; d > most {
		t.Fatalf("recording holds %v of audio, more than the %v before the loss (+1 s): the stand-in's audio joined it", d, lostAt)
	}
	if _, dev, err := record(t, r, "", ""); err != nil || dev != standIn.Device {
		t.Fatalf("recording while the microphone is gone: device %q, %v; want the stand-in %q", dev, err, standIn.Device)
	}

	module = loadMic(t, sink, desc)
	defer unloadMic(t, module)
	silence(t, sink)
	if back := waitEvent(t, r, EventDeviceRestored, 10*time.Second); !strings.Contains(back.Device, desc) {
		t.Fatalf("restored event names %q, want %s", back.Device, desc)
	}
	if _, dev, err := record(t, r, "", ""); err != nil || !strings.Contains(dev, desc) {
		t.Fatalf("recording after the microphone returned: device %q, %v; want %s", dev, err, desc)
	}
}
