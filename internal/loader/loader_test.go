package loader

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/models/hubtest"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, testenv.IdleHTTPConnections()...)
}

// testLoader is a loader with an unstarted tray (it keeps state, shows
// nothing) and a model cache served by endpoint.
func testLoader(t *testing.T, endpoint string) *Loader {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	cache, err := models.New(models.Options{Dir: t.TempDir(), Endpoint: endpoint}, log)
	if err != nil {
		t.Fatal(err)
	}
	tr := tray.New(tray.Config{}, log)
	t.Cleanup(tr.Close)
	l := New(Options{Models: cache}, config.Defaults(), tr, func(notify.Message) {}, log)
	t.Cleanup(l.Close)
	return l
}

// loadingEngine answers as a Service does: ErrNoModel while no model serves.
type loadingEngine struct{ serving atomic.Bool }

func (e *loadingEngine) Transcribe(context.Context, []float32, whisper.Options) (*whisper.Result, error) {
	if !e.serving.Load() {
		return nil, backend.ErrNoModel
	}
	return &whisper.Result{Text: "text"}, nil
}

// During a load a dictation goes to the model that serves meanwhile; with
// none (the first load, a GPU model closed first) the user is told, and the
// text comes when the load ends, unless the dictation is given up.
func TestGatedEngineWaitsForTheLoad(t *testing.T) {
	tests := []struct {
		name     string
		loading  bool
		serving  bool // a model serves during the load
		cancel   bool
		yielding bool // a hold's early transcription: it does not wait, and the user is told nothing
		wantWait bool
		wantErr  error
	}{
		{name: "no load", serving: true},
		{name: "load pending, none serving", loading: true, wantWait: true},
		{name: "load pending, the old model serving", loading: true, serving: true},
		{name: "given up while waiting", loading: true, cancel: true, wantWait: true, wantErr: context.Canceled},
		// The release's own transcription waits instead, and says so; one
		// waiting on the hold's would keep the user from being told.
		{name: "early transcription during the load", loading: true, yielding: true, wantErr: backend.ErrNoModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g gate
			var waited atomic.Int32
			eng := &loadingEngine{}
			eng.serving.Store(tt.serving)
			e := &gatedEngine{Engine: eng, gate: &g, waiting: func() { waited.Add(1) }}
			if tt.loading {
				g.begin()
				g.begin() // a second job while the first runs: still one gate
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.yielding {
				ctx = whisper.Yielding(ctx)
			}
			type answer struct {
				text string
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				r, err := e.Transcribe(ctx, nil, whisper.DefaultOptions())
				if err != nil {
					done <- answer{err: err}
					return
				}
				done <- answer{text: r.Text}
			}()
			if tt.wantWait {
				select {
				case a := <-done:
					t.Fatalf("answered during the load: %+v", a)
				case <-time.After(100 * time.Millisecond):
				}
				if tt.cancel {
					cancel()
				} else {
					eng.serving.Store(true)
					g.end()
				}
			}
			a := <-done
			if !errors.Is(a.err, tt.wantErr) || (tt.wantErr == nil && a.text != "text") {
				t.Fatalf("got %+v, want text or %v", a, tt.wantErr)
			}
			if got, want := waited.Load() == 1, tt.wantWait && !tt.yielding; got != want {
				t.Errorf("told the user %d times, want a notice: %v", waited.Load(), want)
			}
			if g.pending() != nil && !tt.loading {
				t.Error("the gate is busy with no load")
			}
		})
	}
}

// A model unloaded for idleness (engine.unload_after) holds the gate until
// it is back: the next dictation's key-down loads it, a dictation that
// started before the unload asks for the load when it waits, and the gate
// opens only once the load has ended.
func TestUnloadedModelLoadsAtTheNextDictation(t *testing.T) {
	for _, wake := range []string{"key-down", "waiting"} {
		t.Run(wake, func(t *testing.T) {
			l := testLoader(t, "")
			cfg := config.Defaults()
			cfg.UnloadAfter = time.Minute
			l.SetDictation(fixedDictation{cfg})
			l.unload() // no model loaded: it stops nothing, and holds the gate
			if n := l.OnLoaded(t.Context(), Loaded{unloaded: true}); n != (News{}) {
				t.Errorf("the unload's news = %+v, want none: the ready line says it", n)
			}
			if !l.Unloaded() || l.Pending() {
				t.Fatalf("after the unload: unloaded %v, pending %v; want unloaded, nothing pending", l.Unloaded(), l.Pending())
			}
			if got := l.ReadyText(); !strings.Contains(got, "unloaded (idle 1m0s)") {
				t.Errorf("ready line %q does not say the model is unloaded", got)
			}
			l.settleGate()
			if l.gate.pending() == nil {
				t.Fatal("the gate opened while the model is unloaded: a dictation would fail with no model")
			}
			l.Use(false, cfg) // a command or a step that needs no model
			if !l.Unloaded() {
				t.Fatal("a step that is not a dictation loaded the model")
			}
			if wake == "key-down" {
				l.Use(true, cfg)
			} else if !l.ShowWaiting(cfg) {
				t.Error("a dictation waiting for the unloaded model was not told it waits")
			}
			if l.Unloaded() || !l.Pending() {
				t.Fatalf("after the %s: unloaded %v, pending %v; want a load under way", wake, l.Unloaded(), l.Pending())
			}
			if j := <-l.loadReq; j.cfg.UnloadAfter != time.Minute || !j.wake {
				t.Errorf("load job %+v, want the config in use, loaded for a waiting dictation (no warm-up)", j)
			}
		})
	}
}

// Turning engine.unload_after off while the model is unloaded loads it
// again: 0 keeps the model loaded.
func TestUnloadAfterTurnedOffLoadsTheModel(t *testing.T) {
	l := testLoader(t, "")
	cfg := config.Defaults()
	cfg.UnloadAfter = time.Minute
	l.SetDictation(fixedDictation{cfg})
	l.unload()
	l.ApplyUnload(cfg) // still on: nothing to load
	if !l.Unloaded() || l.Pending() {
		t.Fatalf("unload_after still on: unloaded %v, pending %v; want it left unloaded", l.Unloaded(), l.Pending())
	}
	cfg.UnloadAfter = 0
	l.ApplyUnload(cfg)
	if l.Unloaded() || !l.Pending() {
		t.Fatalf("unload_after turned off: unloaded %v, pending %v; want a load under way", l.Unloaded(), l.Pending())
	}
	if j := <-l.loadReq; j.wake {
		t.Errorf("load job %+v, want a warm load: no dictation waits", j)
	}
}

// fixedDictation is the dictation settings cfg, told of nothing.
type fixedDictation struct{ cfg config.Config }

func (fixedDictation) ModelChanged()           {}
func (d fixedDictation) Config() config.Config { return d.cfg }

// "GPU not used" is told only when an NVIDIA or AMD GPU was found, the
// engine runs on the CPU, and the config did not ask for the CPU.
func TestGPUNotUsed(t *testing.T) {
	nvidia := gpu.Report{GPUs: []gpu.GPU{{Vendor: gpu.NVIDIA, Name: "GeForce RTX 3060"}}}
	intel := gpu.Report{GPUs: []gpu.GPU{{Vendor: gpu.Intel, Name: "UHD 630"}}}
	const why = "CUDA 12 libraries not found — using CPU mode"
	tests := []struct {
		name   string
		loaded *backend.Loaded
		device choice.Device
		want   bool
	}{
		{"no model", nil, choice.DeviceAuto, false},
		{"NVIDIA found, CPU used", &backend.Loaded{Report: nvidia, Spec: engine.Spec{Device: "cpu"}, Message: why}, choice.DeviceAuto, true},
		{"NVIDIA found, CPU asked for", &backend.Loaded{Report: nvidia, Spec: engine.Spec{Device: "cpu"}, Message: why}, choice.DeviceCPU, false},
		{"NVIDIA used", &backend.Loaded{Report: nvidia, Spec: engine.Spec{Device: "cuda"}}, choice.DeviceAuto, false},
		{"only an Intel GPU", &backend.Loaded{Report: intel, Spec: engine.Spec{Device: "cpu"}}, choice.DeviceAuto, false},
	}
	for _, tt := range tests {
		cfg := config.Defaults()
		cfg.Engine.Device = tt.device
		reason, ok := GPUNotUsed(tt.loaded, cfg)
		if ok != tt.want || ok && reason != why {
			t.Errorf("%s: told %v (%q), want %v", tt.name, ok, reason, tt.want)
		}
	}
}

// Two downloads at once both report (the second used to be dropped), a
// repeated pick starts no second download, and Run's wait ends each one.
func TestConcurrentPullsBothReport(t *testing.T) {
	tiny := testenv.Model(t, "tiny.en")
	hub := hubtest.New(map[string]string{"Systran/faster-whisper-tiny.en": tiny, "Systran/faster-whisper-tiny": tiny})
	defer hub.Close()
	d := testLoader(t, hub.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.Pull(ctx, "tiny.en")
	d.Pull(ctx, "tiny")
	d.Pull(ctx, "tiny") // already downloading
	var got []string
	for range 2 {
		select {
		case r := <-d.Pulled():
			if r.Err != nil {
				t.Fatalf("pull %s: %v", r.Name, r.Err)
			}
			got = append(got, r.Name)
		case <-time.After(60 * time.Second):
			t.Fatalf("only %v reported within 60 s", got)
		}
	}
	sort.Strings(got)
	if len(got) != 2 || got[0] != "tiny" || got[1] != "tiny.en" {
		t.Fatalf("downloads reported %v, want tiny and tiny.en once each", got)
	}
	for _, name := range got {
		if _, ok := d.Models().Resolve(name); !ok {
			t.Errorf("%s reported done but is not in the cache", name)
		}
	}
	d.WaitPulls()
}

// A download still running when the app quits is cancelled and waited for.
func TestQuitEndsDownload(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	d := testLoader(t, hang.URL)
	ctx, cancel := context.WithCancel(context.Background())
	d.Pull(ctx, "tiny.en")
	time.Sleep(100 * time.Millisecond) // the request is in flight
	cancel()
	waited := make(chan struct{})
	go func() { d.WaitPulls(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the download goroutine outlived the app")
	}
	hang.CloseClientConnections()
}

// The tray's loads and every command map the engine settings to the
// backend's options through BackendOptions; the device index is one of them
// (transcribe and serve once dropped it).
func TestBackendOptionsFollowTheEngineSettings(t *testing.T) {
	tests := []config.Engine{
		{Device: choice.DeviceAuto},
		{Device: choice.DeviceCUDA, DeviceIndex: 1, ComputeType: "float16", CPUThreads: 2},
		{Device: choice.DeviceCPU, ComputeType: "int8", CPUThreads: 4},
	}
	for _, e := range tests {
		opt, err := BackendOptions(e, "/engines", "/state")
		if err != nil {
			t.Fatalf("self-test sample: %v", err)
		}
		if opt.Device != e.Device || opt.DeviceIndex != e.DeviceIndex || opt.ComputeType != e.ComputeType ||
			opt.Threads != e.CPUThreads || opt.EngineRoot != "/engines" || opt.StateDir != "/state" || len(opt.Sample) == 0 {
			t.Errorf("%+v: got %+v", e, opt)
		}
	}
}
