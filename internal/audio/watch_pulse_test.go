//go:build linux

package audio

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openStreams counts this process's capture streams in PulseAudio.
func openStreams(t *testing.T) int {
	t.Helper()
	out, err := exec.Command("pactl", "list", "source-outputs").CombinedOutput()
	if err != nil {
		t.Fatalf("pactl list source-outputs: %v: %s", err, out)
	}
	return strings.Count(string(out), `application.process.id = "`+strconv.Itoa(os.Getpid())+`"`)
}

// With the pre-roll off no stream is open while idle, yet the microphones
// are watched: a configured one unplugged and back, and a new system
// default, are told without a press, and the next recording still works.
func TestIdleMicrophoneWatchedWithoutAStream(t *testing.T) {
	requirePulse(t)
	stamp := time.Now().UnixNano() % 1e9
	sinkA, descA := fmt.Sprintf("wk_watchA_%d_%d", os.Getpid(), stamp), fmt.Sprintf("WKWatchA%d", stamp)
	sinkB, descB := fmt.Sprintf("wk_watchB_%d_%d", os.Getpid(), stamp), fmt.Sprintf("WKWatchB%d", stamp)
	moduleA := loadMic(t, sinkA, descA)
	silence(t, sinkA)

	named := newRecorder(t, Config{Device: descA, RetryInterval: 200 * time.Millisecond})
	unloadMic(t, moduleA)
	lost := waitEvent(t, named, EventDeviceLost, 10*time.Second)
	if !strings.Contains(lost.Device, descA) || lost.Err == nil || !strings.Contains(lost.Err.Error(), "not connected") {
		t.Errorf("lost event %q (%v), want the microphone %s named as not connected", lost.Device, lost.Err, descA)
	}
	moduleA = loadMic(t, sinkA, descA)
	defer func() { unloadMic(t, moduleA) }()
	silence(t, sinkA)
	if back := waitEvent(t, named, EventDeviceRestored, 10*time.Second); !strings.Contains(back.Device, descA) {
		t.Errorf("restored event names %q, want %s", back.Device, descA)
	}
	if n := openStreams(t); n != 0 {
		t.Fatalf("%d capture streams open while idle, want none", n)
	}
	if _, dev, err := record(t, named, "", ""); err != nil || !strings.Contains(dev, descA) {
		t.Fatalf("recording after the microphone came back: device %q, %v", dev, err)
	}

	setDefaultSource(t, sinkA+".monitor")
	// New looks at once, not at the first tick, so a default changed before
	// that tick is told too: a recorder whose tick never comes has seen A.
	slow := newRecorder(t, Config{RetryInterval: time.Hour})
	slow.devMu.Lock()
	seen := slow.watched
	slow.devMu.Unlock()
	if !strings.Contains(seen, descA) {
		t.Fatalf("New's first look saw %q, want %s", seen, descA)
	}
	def := newRecorder(t, Config{RetryInterval: 200 * time.Millisecond})
	moduleB := loadMic(t, sinkB, descB)
	defer unloadMic(t, moduleB)
	silence(t, sinkB)
	setDefaultSource(t, sinkB+".monitor")
	ev := waitEvent(t, def, EventDeviceChanged, 10*time.Second)
	if !strings.Contains(ev.Device, descB) || !strings.Contains(ev.Was, descA) {
		t.Errorf("changed event %q (was %q), want %s (was %s)", ev.Device, ev.Was, descB, descA)
	}
	if n := openStreams(t); n != 0 {
		t.Fatalf("%d capture streams open while idle, want none", n)
	}
}
