package audio

import (
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gen2brain/malgo"
	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/testlog"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testLog sends the recorder's log to t.Log.
func testLog(t testing.TB) *slog.Logger { return testlog.New(t, slog.LevelInfo) }

func newRecorder(t testing.TB, cfg Config) *Recorder {
	t.Helper()
	r, err := New(cfg, testLog(t))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

func waitEvent(t *testing.T, r *Recorder, kind EventKind, timeout time.Duration) Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case e, ok := <-r.Events():
			if !ok {
				t.Fatalf("Events closed while waiting for %v", kind)
			}
			t.Logf("event %v device=%q err=%v", e.Kind, e.Device, e.Err)
			if e.Kind == kind {
				return e
			}
		case <-deadline:
			t.Fatalf("no %v event within %v", kind, timeout)
		}
	}
}

func allZero(s []float32) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

func TestNullBackendRecordsSilence(t *testing.T) {
	tests := []struct {
		name    string
		preRoll time.Duration
	}{
		{name: "cold start", preRoll: 0},
		{name: "stream kept open", preRoll: 300 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(t, Config{Backends: []malgo.Backend{BackendNull}, PreRoll: tc.preRoll})
			devs, err := r.Devices()
			if err != nil {
				t.Fatalf("Devices: %v", err)
			}
			if len(devs) != 1 || devs[0].Name != "NULL Capture Device" {
				t.Fatalf("Devices = %+v, want the NULL Capture Device", devs)
			}
			if tc.preRoll > 0 {
				time.Sleep(2 * tc.preRoll) // let the ring fill
			}
			if err := r.Start(); err != nil {
				t.Fatalf("Start: %v", err)
			}
			begin := time.Now()
			time.Sleep(time.Second)
			elapsed := time.Since(begin)
			got, err := r.Stop()
			if err != nil {
				t.Fatalf("Stop: %v", err)
			}
			st := r.Stats()
			t.Logf("%d samples in %v, stats %+v", len(got), elapsed, st)
			// The null device is paced in real time: about 16000 samples per
			// second plus the pre-roll. The bounds are loose because they
			// depend on the scheduler, not on the code.
			want := elapsed.Seconds()*SampleRate + st.PreRoll.Seconds()*SampleRate
			if n := float64(len(got)); n < 0.5*want || n > 1.5*want+1600 {
				t.Fatalf("%d samples, want about %.0f", len(got), want)
			}
			if !allZero(got) {
				t.Fatal("null device delivered non-zero samples")
			}
			if tc.preRoll > 0 && (st.PreRoll <= 0 || st.PreRoll > tc.preRoll) {
				t.Fatalf("pre-roll %v, want in (0, %v]", st.PreRoll, tc.preRoll)
			}
			if tc.preRoll == 0 && st.PreRoll != 0 {
				t.Fatalf("pre-roll %v without PreRoll", st.PreRoll)
			}
			if st.FirstSampleLatency <= 0 {
				t.Fatalf("FirstSampleLatency = %v, want > 0", st.FirstSampleLatency)
			}
		})
	}
}

func TestMaxDurationStopsAndNotifies(t *testing.T) {
	r := newRecorder(t, Config{Backends: []malgo.Backend{BackendNull}, MaxDuration: 250 * time.Millisecond})
	if err := r.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	waitEvent(t, r, EventLimit, 10*time.Second)
	got, err := r.Stop()
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if len(got) != SampleRate/4 {
		t.Fatalf("%d samples, want exactly %d (250 ms)", len(got), SampleRate/4)
	}
	if !r.Stats().Limited {
		t.Fatal("Stats().Limited = false")
	}
}

func TestDeviceNotFound(t *testing.T) {
	tests := []struct {
		name    string
		preRoll time.Duration
	}{
		{name: "kept open", preRoll: 200 * time.Millisecond},
		{name: "cold start", preRoll: 0},
	}
	const want = `no microphone found matching "studio mic": connect it or pick another in config input_device (available: "NULL Capture Device")`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(t, Config{Backends: []malgo.Backend{BackendNull}, Device: "Studio Mic", PreRoll: tc.preRoll})
			if tc.preRoll > 0 {
				e := waitEvent(t, r, EventDeviceLost, 5*time.Second)
				if !errors.Is(e.Err, ErrNoDevice) {
					t.Fatalf("event error %v, want ErrNoDevice", e.Err)
				}
			}
			err := r.Start()
			if !errors.Is(err, ErrNoDevice) {
				t.Fatalf("Start: %v, want ErrNoDevice", err)
			}
			if strings.ReplaceAll(err.Error(), "Studio Mic", "studio mic") != want {
				t.Fatalf("message:\n got %s\nwant %s", err, want)
			}
			if _, err := r.Stop(); !errors.Is(err, ErrNotRecording) {
				t.Fatalf("Stop after failed Start: %v, want ErrNotRecording", err)
			}
		})
	}
}

func TestDeviceByNameAndID(t *testing.T) {
	probe := newRecorder(t, Config{Backends: []malgo.Backend{BackendNull}})
	devs, err := probe.Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("Devices: %v %v", devs, err)
	}
	tests := []struct {
		name   string
		device string
	}{
		{name: "exact name", device: "NULL Capture Device"},
		{name: "substring any case", device: "null capture"},
		{name: "id", device: devs[0].ID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(t, Config{Backends: []malgo.Backend{BackendNull}, Device: tc.device})
			if err := r.Start(); err != nil {
				t.Fatalf("Start: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
			if _, err := r.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if got := r.Stats().Device; got != "NULL Capture Device" {
				t.Fatalf("device %q", got)
			}
		})
	}
}

func TestDeviceLostAndRestored(t *testing.T) {
	r := newRecorder(t, Config{
		Backends:      []malgo.Backend{BackendNull},
		PreRoll:       200 * time.Millisecond,
		RetryInterval: 100 * time.Millisecond,
	})
	if err := r.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	// Stop the real device behind the recorder's back, as an unplugged
	// microphone does.
	r.devMu.Lock()
	if err := r.dev.Stop(); err != nil {
		r.devMu.Unlock()
		t.Fatalf("device Stop: %v", err)
	}
	r.devMu.Unlock()

	lost := waitEvent(t, r, EventDeviceLost, 10*time.Second)
	if !errors.Is(lost.Err, ErrDeviceLost) || lost.Device != "NULL Capture Device" {
		t.Fatalf("lost event %+v", lost)
	}
	waitEvent(t, r, EventDeviceRestored, 10*time.Second)

	got, err := r.Stop()
	if !errors.Is(err, ErrDeviceLost) {
		t.Fatalf("Stop after loss: %v, want ErrDeviceLost", err)
	}
	if len(got) == 0 {
		t.Fatal("Stop after loss returned no samples; want what was captured")
	}
	t.Logf("Stop: %d samples, %v", len(got), err)

	if err := r.Start(); err != nil {
		t.Fatalf("Start after recovery: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := r.Stop(); err != nil {
		t.Fatalf("Stop after recovery: %v", err)
	}
}

func TestRecorderStateErrors(t *testing.T) {
	r, err := New(Config{Backends: []malgo.Backend{BackendNull}, PreRoll: 100 * time.Millisecond}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Stop(); !errors.Is(err, ErrNotRecording) {
		t.Fatalf("Stop before Start: %v", err)
	}
	r.Cancel() // idle: no effect
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); !errors.Is(err, ErrRecording) {
		t.Fatalf("second Start: %v", err)
	}
	r.Cancel()
	if _, err := r.Stop(); !errors.Is(err, ErrNotRecording) {
		t.Fatalf("Stop after Cancel: %v", err)
	}
	if err := r.Start(); err != nil { // Close during a recording
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := r.Start(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if _, err := r.Devices(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Devices after Close: %v", err)
	}
	if _, ok := <-r.Events(); ok {
		t.Fatal("Events not closed by Close")
	}
	goleak.VerifyNone(t)
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "negative pre-roll", cfg: Config{PreRoll: -time.Second}, want: "audio pre-roll -1s is negative: use 0 to open the microphone only while recording"},
		{name: "long pre-roll", cfg: Config{PreRoll: time.Minute}, want: "audio pre-roll 1m0s is too long: use at most 10s"},
		{name: "negative max", cfg: Config{MaxDuration: -time.Second}, want: "audio max duration -1s is negative: use a positive duration such as 15m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, testLog(t))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRing(t *testing.T) {
	var g ring
	g.reset(5)
	seq := func(a, b int) []float32 {
		var s []float32
		for i := a; i < b; i++ {
			s = append(s, float32(i))
		}
		return s
	}
	tests := []struct {
		name  string
		write []float32
		last  int
		want  []float32
	}{
		{name: "partial", write: seq(0, 3), last: 5, want: seq(0, 3)},
		{name: "wraps", write: seq(3, 7), last: 5, want: seq(2, 7)},
		{name: "newest two", write: nil, last: 2, want: seq(5, 7)},
		{name: "overwrite all", write: seq(7, 20), last: 4, want: seq(16, 20)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g.write(tc.write)
			got := g.appendLast(nil, tc.last)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// BenchmarkFirstSampleLatency measures Start → first captured sample on the
// null device, with the stream kept open (pre-roll) and opened per recording.
func BenchmarkFirstSampleLatency(b *testing.B) {
	tests := []struct {
		name    string
		preRoll time.Duration
	}{
		{name: "kept-open", preRoll: DefaultPreRoll},
		{name: "cold", preRoll: 0},
	}
	for _, tc := range tests {
		b.Run(tc.name, func(b *testing.B) {
			r, err := New(Config{Backends: []malgo.Backend{BackendNull}, PreRoll: tc.preRoll}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			var total time.Duration
			for b.Loop() {
				if err := r.Start(); err != nil {
					b.Fatal(err)
				}
				for {
					r.mu.Lock()
					got := !r.firstAt.IsZero()
					r.mu.Unlock()
					if got {
						break
					}
					time.Sleep(time.Millisecond)
				}
				if _, err := r.Stop(); err != nil {
					b.Fatal(err)
				}
				total += r.Stats().FirstSampleLatency
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "first-sample-ms")
		})
	}
}

// The backend that opened is named in the log, so a user's report says whether
// WASAPI or a fallback captured.
func TestRecorderNamesItsBackend(t *testing.T) {
	tests := []struct {
		name     string
		backends []malgo.Backend
		want     string
	}{
		{name: "null device", backends: []malgo.Backend{BackendNull}, want: "Null"},
		{name: "first that opens", backends: []malgo.Backend{malgo.BackendCoreaudio, BackendNull}, want: "Null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder(t, Config{Backends: tt.backends})
			if r.backend != tt.want {
				t.Errorf("backend = %q, want %q", r.backend, tt.want)
			}
		})
	}
	if b := osBackends(); runtime.GOOS == "linux" && b[0] != malgo.BackendPulseaudio {
		t.Errorf("osBackends() = %v, want PulseAudio first, as miniaudio orders them", b)
	}
}
