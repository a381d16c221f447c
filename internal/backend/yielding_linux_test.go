package backend_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A CPU model opened for yielding work gets a second engine worker for it,
// whose words are the main worker's; without, one worker does both. Closing
// the model leaves no worker behind.
func TestYieldingWorkHasItsOwnWorker(t *testing.T) {
	samples := testenv.Speech(t, "Please send the quarterly report to the finance team before Friday.")
	for _, tc := range []struct {
		yielding bool
		workers  int
	}{{false, 1}, {true, 2}} {
		t.Run(fmt.Sprintf("yielding=%v", tc.yielding), func(t *testing.T) {
			opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu",
				Engine: testenv.WorkerOptions(), Yielding: tc.yielding}
			l, err := backend.Open(context.Background(), testenv.Model(t, "base"), opt, testlog.New(t, slog.LevelWarn))
			if err != nil {
				t.Fatal(err)
			}
			o := whisper.DefaultOptions()
			o.Language = "en"
			plain, err := l.Transcribe(context.Background(), samples, o)
			if err != nil {
				t.Fatal(err)
			}
			early, err := l.Transcribe(whisper.Yielding(context.Background()), samples, o)
			if err != nil {
				t.Fatal(err)
			}
			if early.Text != plain.Text {
				t.Errorf("yielding transcription %q, want the main worker's %q", early.Text, plain.Text)
			}
			if got := children(t); len(got) != tc.workers {
				t.Errorf("%d engine workers (%v), want %d", len(got), got, tc.workers)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(children(t)) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if got := children(t); len(got) > 0 {
				t.Errorf("workers %v still running after Close", got)
			}
		})
	}
}

// SetYielding starts and stops the background worker of a model in use, so
// that turning decoding.early on or off needs no model load; the yielding
// work goes to whichever worker is there, with the same words.
func TestSetYieldingStartsAndStopsTheWorker(t *testing.T) {
	samples := testenv.Speech(t, "Please send the quarterly report to the finance team before Friday.")
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu", Engine: testenv.WorkerOptions()}
	l, err := backend.Open(context.Background(), testenv.Model(t, "base"), opt, testlog.New(t, slog.LevelWarn))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	o := whisper.DefaultOptions()
	o.Language = "en"
	plain, err := l.Transcribe(context.Background(), samples, o)
	if err != nil {
		t.Fatal(err)
	}
	waitWorkers := func(want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for len(children(t)) != want && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := children(t); len(got) != want {
			t.Fatalf("%d engine workers (%v), want %d", len(got), got, want)
		}
	}
	for i, on := range []bool{true, false, true, false} {
		l.SetYielding(on)
		l.SetYielding(on) // a second call changes nothing
		early, err := l.Transcribe(whisper.Yielding(context.Background()), samples, o)
		if err != nil {
			t.Fatalf("step %d (yielding %v): %v", i, on, err)
		}
		if early.Text != plain.Text {
			t.Errorf("step %d (yielding %v): %q, want the main worker's %q", i, on, early.Text, plain.Text)
		}
		want := 1
		if on {
			want = 2
		}
		waitWorkers(want)
	}
}
