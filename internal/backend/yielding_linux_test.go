package backend_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// children lists the pids of this process's running (not zombie) children.
func children(t *testing.T) []int {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
		if err != nil {
			continue // it ended
		}
		// After the command's closing parenthesis: state, then the parent's pid.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			pids = append(pids, pid)
		}
	}
	return pids
}
