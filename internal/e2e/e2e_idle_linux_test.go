package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue #53 item 6: with engine.unload_after the engine workers exit after
// that long without a dictation, so the model's memory (a GPU's too) goes
// with the processes; the tray says the model is unloaded, and the next
// dictation loads it while the user speaks and comes out right.
func TestUnloadAfterGivesTheMemoryBack(t *testing.T) {
	desktopSession(t)
	a := startApp(t, "engine:\n  unload_after: 3s\n")
	before := a.engineWorkers(t)
	if len(before) == 0 {
		t.Fatal("no engine worker at ready")
	}
	held := 0 // what the unload gives back, for the log (docs/benchmarks.md)
	for _, pid := range before {
		if kib, err := rssKiB(pid); err == nil {
			held += kib
		}
	}
	a.waitStatus(t, "unloaded", 2*time.Minute)
	for deadline := time.Now().Add(30 * time.Second); len(a.engineWorkers(t)) > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if w := a.engineWorkers(t); len(w) > 0 {
		t.Fatalf("engine workers %v still run after the unload, want none", w)
	}
	for _, pid := range before {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
			t.Errorf("engine worker %d is still in the process list after the unload", pid)
		}
	}
	stopped := 0
	for _, r := range logRecords(t, a.log) {
		if r["msg"] == "engine worker stopped" {
			stopped++
			if r["exit"] != "exit status 0" {
				t.Errorf("engine worker %v ended with %v at the unload, want a clean exit (exit status 0)", r["pid"], r["exit"])
			}
		}
	}
	if stopped != len(before) {
		t.Errorf("%d engine workers stopped at the unload, want the %d that ran", stopped, len(before))
	}

	t.Logf("the unload ended %d engine workers holding %d MiB resident", len(before), held>>10)

	tg := openTarget(t)
	holdAndSay(t, micWAV(t, dictated))
	r := waitRecord(t, a.log, "dictated", 0, 3*time.Minute)
	t.Logf("the dictation after the unload: release to paste %.0f ms (the load started at its key-down)", r.ReleaseToPaste)
	if got := tg.waitText(t, 10*time.Second); whisper.WordErrorRate(dictated, got) > 0.15 {
		t.Errorf("pasted %q after the unload, want %q", got, dictated)
	}
	if n := len(records(a.log, "loading the model again for a dictation")); n != 1 {
		t.Errorf("the dictation after the unload asked for %d loads, want 1 (at its key-down)", n)
	}
	// The wait is told only once the key is up: from the load at the key-down
	// to the hotkey's stop, no "waiting" line.
	woke := false
	for _, r := range logRecords(t, a.log) {
		switch {
		case r["msg"] == "loading the model again for a dictation":
			woke = true
		case !woke:
		case r["msg"] == "hotkey event" && r["kind"] == "stop":
			woke = false // released: from here a wait is the load outlasting the hold
		case r["msg"] == "status":
			if text, _ := r["text"].(string); strings.Contains(text, "Waiting for the speech model") {
				t.Errorf("the tray said %q while the key was held", text)
			}
		}
	}

	// Turned off while the app runs (no restart): the model stays, and the
	// background worker of early transcriptions is back beside the main one.
	cfg, err := os.ReadFile(a.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.config, []byte(strings.Replace(string(cfg), "unload_after: 3s", "unload_after: 0s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); len(a.engineWorkers(t)) < 2 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if w := a.engineWorkers(t); len(w) != 2 {
		t.Errorf("engine workers after the reload: %v, want the main one and the background one", w)
	}
	if n := len(records(a.log, "model unloaded: no dictation for engine.unload_after")); n > 2 {
		t.Errorf("the model was unloaded %d times; after unload_after: 0s it must stay", n)
	}
}
