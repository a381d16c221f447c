//go:build linux

package audio

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// Without pre-roll the microphone is a stream only while recording: PulseAudio
// lists no WhisperKey source output before Start, after Stop, or after Cancel.
func TestColdRecorderHoldsNoStream(t *testing.T) {
	requirePulse(t)
	_, desc := privateSink(t, 16000, 1)
	r := newRecorder(t, Config{Device: desc})
	if s := testenv.Recording(t, os.Getpid()); len(s) != 0 {
		t.Fatalf("idle recorder without pre-roll holds %q", s)
	}
	for _, end := range []string{"stop", "cancel"} {
		if err := r.Start(); err != nil {
			t.Fatalf("Start: %v", err)
		}
		if s := testenv.Recording(t, os.Getpid()); len(s) != 1 {
			t.Fatalf("recording: WhisperKey streams %q, want exactly one", s)
		}
		if end == "stop" {
			if _, err := r.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
		} else {
			r.Cancel()
		}
		if s := testenv.Recording(t, os.Getpid()); len(s) != 0 {
			t.Fatalf("after %s the recorder still holds %q", end, s)
		}
	}
	if r.HeldOpen() {
		t.Error("HeldOpen() = true without pre-roll")
	}
	mic, err := r.Microphone()
	if err != nil {
		t.Fatalf("Microphone: %v", err)
	}
	if !strings.Contains(mic.Name, desc) || mic.Kind != KindMonitor {
		t.Errorf("Microphone() = %q (%v), want the monitor of %q (%v)", mic.Name, mic.Kind, desc, KindMonitor)
	}

	// Asked for, the pre-roll holds the microphone: one stream while idle,
	// and HeldOpen says so for the tray.
	held := newRecorder(t, Config{Device: desc, PreRoll: 200 * time.Millisecond})
	if s := testenv.Recording(t, os.Getpid()); len(s) != 1 || !held.HeldOpen() {
		t.Errorf("idle recorder with pre-roll: streams %q, HeldOpen %v; want one stream, true", s, held.HeldOpen())
	}
}

// A device initialised and kept stopped (miniaudio's ma_device_init without
// ma_device_start) is already a PulseAudio source output, corked: the
// desktop counts it as a microphone in use, so the recorder never keeps one
// ready between recordings. This test pins down that fact.
func TestStoppedDeviceIsASourceOutput(t *testing.T) {
	requirePulse(t)
	_, desc := privateSink(t, 16000, 1)
	r := newRecorder(t, Config{Device: desc})
	infos, err := r.actx.Devices(malgo.Capture)
	if err != nil {
		t.Fatal(err)
	}
	m := matchDevice(infos, desc)
	if m == nil {
		t.Fatalf("no device matches %q", desc)
	}
	id := m.ID
	dc := malgo.DefaultDeviceConfig(malgo.Capture)
	dc.Capture.Format, dc.Capture.Channels, dc.SampleRate = malgo.FormatF32, 1, SampleRate
	var pin runtime.Pinner
	pin.Pin(&id)
	dc.Capture.DeviceID = unsafe.Pointer(&id)
	dc.Pulse.StreamNameCapture = "Stopped"
	dev, err := malgo.InitDevice(r.actx.Context, dc, malgo.DeviceCallbacks{Data: func(_, _ []byte, _ uint32) {}})
	pin.Unpin()
	if err != nil {
		t.Fatalf("InitDevice: %v", err)
	}
	defer dev.Uninit()
	s := testenv.Recording(t, os.Getpid())
	t.Logf("initialised, never started: WhisperKey streams %q", s)
	if !slices.Contains(s, "WhisperKey / Stopped") {
		t.Fatalf("a stopped device is not listed (%q): a pre-initialised device would then be a way to open faster", s)
	}
}

// BenchmarkColdStartPulse measures a recording opened at the key press, on
// the test desktop's microphone (a null sink's monitor kept running by a
// stream of silence, as scripts/testenv.sh sets up): open_ms is Start's own
// time, first_sample_ms the time from Start to the first audio delivered,
// and lost_ms how much of what was said from the moment of Start is missing
// from the recording's front, found by aligning it with a second recorder
// that holds the same source open with a pre-roll.
func BenchmarkColdStartPulse(b *testing.B) {
	requirePulse(b)
	path, _ := speech(b, "Seven silver spoons were placed on the wooden table near the open window, one by one, by the old man")
	sink, desc := privateSink(b, 16000, 1)
	// A real microphone delivers all the time; so does this one, as on the
	// test desktop.
	silence := exec.Command("pacat", "--playback", "-d", sink, "--rate=16000", "--channels=1", "--format=s16le", "/dev/zero")
	if err := silence.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = silence.Process.Kill(); _ = silence.Wait() })
	time.Sleep(time.Second)
	// The reference keeps the source running and gives the clock: its
	// recording starts exactly PreRoll before Start.
	const pre = 500 * time.Millisecond
	ref := newRecorder(b, Config{Device: desc, PreRoll: pre})
	cold := newRecorder(b, Config{Device: desc})
	var openSum, firstSum, lostSum time.Duration
	for b.Loop() {
		play := exec.Command("paplay", "-d", sink, path)
		if err := play.Start(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // into the sentence, the ring full
		open, first, got, want := coldRound(b, ref, cold)
		_ = play.Wait()
		lag, corr := align(want, got, SampleRate/2) // want[i+lag] ≈ got[i]
		if corr < 0.9 {
			b.Fatalf("the cold recording does not match the reference (corr %.3f)", corr)
		}
		lost := samplesDur(lag, SampleRate) - ref.Stats().PreRoll
		b.Logf("open %v, first sample %v, lost %v (lag %d, corr %.3f, reference pre-roll %v)", open, first, lost, lag, corr, ref.Stats().PreRoll)
		openSum += open
		firstSum += first
		lostSum += lost
	}
	n := float64(b.N)
	b.ReportMetric(float64(openSum.Milliseconds())/n, "open_ms")
	b.ReportMetric(float64(firstSum.Milliseconds())/n, "first_sample_ms")
	b.ReportMetric(float64(lostSum.Milliseconds())/n, "lost_ms")
}

// A Bluetooth microphone is never held open, even with pre-roll asked for:
// a source named as PulseAudio names a headset's (bluez_input.*, here a
// remap of a private null sink's monitor) has no stream while idle, one
// while recording, and none after.
func TestBluetoothNotHeldOpen(t *testing.T) {
	requirePulse(t)
	sink, _ := privateSink(t, 16000, 1)
	name := "bluez_input.wktest_" + sink[len("wk_audiotest_"):]
	desc := "WKBluetoothTest" + sink[len("wk_audiotest_"):]
	out, err := exec.Command("pactl", "load-module", "module-remap-source", "source_name="+name,
		"master="+sink+".monitor", "source_properties=device.description="+desc).CombinedOutput()
	if err != nil {
		t.Fatalf("load remap source: %v: %s", err, out)
	}
	module := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("pactl", "unload-module", module).Run() })

	r := newRecorder(t, Config{Device: desc, PreRoll: 500 * time.Millisecond})
	mic, err := r.Microphone()
	if err != nil {
		t.Fatalf("Microphone: %v", err)
	}
	if mic.Kind != KindBluetooth {
		t.Fatalf("Microphone() = %q kind %v, want Bluetooth", mic.Name, mic.Kind)
	}
	for i := range 2 {
		if s := testenv.Recording(t, os.Getpid()); len(s) != 0 || r.HeldOpen() {
			t.Fatalf("idle (%d): streams %q, HeldOpen %v; want none, false", i, s, r.HeldOpen())
		}
		if err := r.Start(); err != nil {
			t.Fatalf("Start: %v", err)
		}
		if s := testenv.Recording(t, os.Getpid()); len(s) != 1 {
			t.Fatalf("recording: streams %q, want one", s)
		}
		if _, err := r.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if pre := r.Stats().PreRoll; pre != 0 {
			t.Errorf("recording %d carried %v of pre-roll from a microphone that was closed", i, pre)
		}
	}
	if s := testenv.Recording(t, os.Getpid()); len(s) != 0 {
		t.Fatalf("after the recordings: streams %q, want none", s)
	}
	rep := Probe(Config{Device: desc, PreRoll: 500 * time.Millisecond}, testLog(t))
	if rep.Kind != "Bluetooth" || rep.Held || !strings.Contains(rep.Device, desc) {
		t.Errorf("Probe = %+v, want the Bluetooth microphone, not held", rep)
	}
}
