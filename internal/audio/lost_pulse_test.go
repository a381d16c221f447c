//go:build linux

package audio

import (
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
