//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// soakSentence is short, so a dictation costs little more than the app's own work.
const soakSentence = "Call me back later."

// procStats is what a long day could grow in one process.
type procStats struct {
	rssKB, fds, threads int
}

func readProc(pid int) procStats {
	var s procStats
	s.rssKB, _ = testenv.ProcStatus(strconv.Itoa(pid), "VmRSS")
	s.threads, _ = testenv.ProcStatus(strconv.Itoa(pid), "Threads")
	if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = len(fds)
	}
	return s
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkSoak is `make soak`: SOAK_N dictations (default 1000) through the
// real app on the real engine, with a model switch (base ↔ tiny.en) every
// SOAK_SWITCH_EVERY (100) and the microphone unplugged and plugged back every
// SOAK_UNPLUG_EVERY (250). It reports the app's and the worker's RSS, the
// app's file descriptors, threads and goroutines, and the release→paste
// latency (median of 20) near the start and at the end. Run with -benchtime 1x.
func BenchmarkSoak(b *testing.B) {
	desktopSession(b)
	n, switchEvery, unplugEvery := envInt("SOAK_N", 1000), envInt("SOAK_SWITCH_EVERY", 100), envInt("SOAK_UNPLUG_EVERY", 250)
	models := []string{testenv.Model(b, "base"), testenv.Model(b, "tiny.en")}
	m := newMic(b)
	wav := micWAV(b, soakSentence)
	// language en: the multilingual base model takes a short espeak clip for
	// Japanese now and then on auto, which says nothing about a long day.
	a, _ := launchApp(b, "model: "+models[0]+"\nlanguage: en\nhotkeys:\n  record: ctrl+shift+f9\n  cancel: esc\naudio:\n  input_device: "+m.desc+"\n",
		"WHISPERKEY_LOG_FORMAT=json")
	a.waitStatus(b, "ready", 90*time.Second)
	tg := openTarget(b)
	modelLine := regexp.MustCompile(`(?m)^model: .*$`)

	type sample struct {
		at          int
		app, worker procStats
		goroutines  int
		latencies   []float64
		model       int
	}
	var samples []sample
	var lat []float64
	failed, switches, unplugs := 0, 0, 0
	model := 0
	take := func(at int) {
		recs := records(a.log, "dictated")
		g := 0
		if len(recs) > 0 {
			g = recs[len(recs)-1].Goroutines
		}
		samples = append(samples, sample{at: at, app: readProc(a.cmd.Process.Pid), worker: readProc(a.workerPID(b)),
			goroutines: g, latencies: slices.Clone(lat[max(0, len(lat)-20):]), model: model})
	}
	b.ResetTimer()
	for i := 1; i <= n; i++ {
		tg.clear(b)
		before := len(records(a.log, "dictated"))
		holdWhile(b, 200*time.Millisecond, func() { m.say(b, wav) })
		got := tg.waitText(b, 30*time.Second)
		if wer := whisper.WordErrorRate(soakSentence, got); got == "" || wer > 0.5 {
			failed++
			b.Logf("dictation %d pasted %q", i, got)
		}
		for deadline := time.Now().Add(5 * time.Second); len(records(a.log, "dictated")) == before && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if recs := records(a.log, "dictated"); len(recs) > before {
			lat = append(lat, recs[len(recs)-1].ReleaseToPaste)
		}
		if i == 20 || i == n || (i%switchEvery == 0 && model == 0) {
			take(i) // also before each switch away from the first model, to compare its worker
		}
		if i%switchEvery == 0 && i < n {
			old := a.workerPID(b)
			model = 1 - model
			cfg, err := os.ReadFile(a.config)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(a.config, modelLine.ReplaceAll(cfg, []byte("model: "+models[model])), 0o644); err != nil {
				b.Fatal(err)
			}
			waitWorkerChange(b, a, old)
			a.waitStatus(b, "model "+filepath.Base(models[model])+" ·", 120*time.Second) // the ready line, not "Loading …"
			switches++
		}
		if i%unplugEvery == 0 && i < n {
			m.unplug(b)
			a.waitStatus(b, "Recording from", 15*time.Second) // the default stands in
			m.plug(b)
			a.waitStatus(b, "is back", 15*time.Second)
			unplugs++
		}
		if failed > n/50+1 {
			b.Fatalf("%d of %d dictations failed", failed, i)
		}
	}
	b.StopTimer()
	first, last := samples[0], samples[len(samples)-1]
	sameModel := first // the last sample of a worker on the first model
	for _, s := range samples {
		if s.model == first.model {
			sameModel = s
		}
	}
	med := func(v []float64) float64 {
		if len(v) == 0 {
			return 0
		}
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.Logf("%d dictations, %d failed, %d model switches, %d unplugs", n, failed, switches, unplugs)
	// Every sample, so that start and end compare on the same model (a
	// sample is taken before each switch away from the first one).
	b.Logf("| after | model | app RSS (MB) | worker RSS (MB) | app fds | app threads | app goroutines | release→paste, median of the last 20 (ms) |")
	b.Logf("|---|---|---|---|---|---|---|---|")
	for _, s := range samples {
		b.Logf("| %d | %s | %.1f | %.1f | %d | %d | %d | %.0f |", s.at, filepath.Base(models[s.model]), float64(s.app.rssKB)/1024,
			float64(s.worker.rssKB)/1024, s.app.fds, s.app.threads, s.goroutines, med(s.latencies))
	}
	b.Logf("same model (%s), after %d → after %d: worker RSS %+.1f %%, release→paste %.0f → %.0f ms",
		filepath.Base(models[first.model]), first.at, sameModel.at,
		100*(float64(sameModel.worker.rssKB)/float64(first.worker.rssKB)-1), med(first.latencies), med(sameModel.latencies))
	b.ReportMetric(float64(n), "dictations")
	b.ReportMetric(float64(failed), "failed")
	b.ReportMetric(float64(last.app.rssKB-first.app.rssKB)/1024, "app_rss_growth_MB")
	b.ReportMetric(float64(last.app.fds-first.app.fds), "fd_growth")
	b.ReportMetric(float64(last.goroutines-first.goroutines), "goroutine_growth")
}
