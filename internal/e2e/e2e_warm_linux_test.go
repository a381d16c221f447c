package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue #51: the first dictation is as fast as the second. Before the app
// says ready, every engine worker has loaded and run one transcription, the
// background worker of early transcriptions too, so the first dictation
// after the start loads no worker and finds none loading.
func TestFirstDictationPaysNoLoad(t *testing.T) {
	desktopSession(t)
	a := startApp(t, "")
	log := logRecords(t, a.log)
	ready := -1
	for i, r := range log {
		if text, _ := r["text"].(string); r["msg"] == "status" && r["state"] == "idle" && strings.Contains(text, "ready") {
			ready = i
			break
		}
	}
	if ready < 0 {
		t.Fatal(`no "ready" status in the log`)
	}
	warmed := map[any]bool{}
	for _, r := range log[:ready] {
		if r["msg"] == "engine warmed up" {
			warmed[r["worker"]] = true
		}
	}
	if !warmed["main"] || !warmed["background"] {
		t.Fatalf("warmed up before ready: %v, want the main and the background worker", warmed)
	}
	if w := a.engineWorkers(t); len(w) != 2 {
		t.Fatalf("engine workers at ready: %v, want the main one and the background one", w)
	}
	loads := func() (n int) {
		for _, r := range logRecords(t, a.log) {
			if r["msg"] == "engine worker ready" {
				n++
			}
		}
		return n
	}
	before := loads()

	tg := openTarget(t)
	wav := micWAV(t, dictated)
	holdAndSay(t, wav)
	waitRecord(t, a.log, "dictated", 0, 2*time.Minute)
	if got := tg.waitText(t, 10*time.Second); whisper.WordErrorRate(dictated, got) > 0.15 {
		t.Errorf("pasted %q, want %q", got, dictated)
	}
	if n := loads() - before; n != 0 {
		t.Errorf("the first dictation after ready loaded %d engine workers, want none", n)
	}
}

// logRecords reads every record of the app's JSON log.
func logRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r map[string]any
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}
