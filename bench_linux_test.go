//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// utterance makes espeak-ng speech of about the given length from whole sentences.
func utterance(b *testing.B, seconds float64) (string, float64) {
	b.Helper()
	sentences := []string{
		"Call me back later.",
		"Remember to buy milk, bread and eggs on the way home.",
		"The coffee machine on the second floor is broken again.",
		"I think we should hire two more engineers for the mobile team.",
		"Our new website will launch next month with a fresh design.",
	}
	dir := b.TempDir()
	var parts []string
	total := 0.0
	for i := 0; total < seconds-0.5; i++ {
		p := filepath.Join(dir, strconv.Itoa(i)+".wav")
		s := sentences[i%len(sentences)]
		if seconds <= 2 {
			s = sentences[0]
		}
		if out, err := exec.Command("espeak-ng", "-w", p, s).CombinedOutput(); err != nil {
			b.Fatalf("espeak-ng: %v %s", err, out)
		}
		d, _ := exec.Command("soxi", "-D", p).Output()
		v, _ := strconv.ParseFloat(strings.TrimSpace(string(d)), 64)
		total += v
		parts = append(parts, p)
		if seconds <= 2 {
			break
		}
	}
	out := filepath.Join(dir, "utterance.wav")
	if o, err := exec.Command("sox", append(parts, out)...).CombinedOutput(); err != nil {
		b.Fatalf("sox: %v %s", err, o)
	}
	return out, total
}

// BenchmarkReleaseToPaste measures the real app from the hotkey release to
// the paste keystroke, split into capture stop, features, engine and paste,
// for 2 s, 5 s and 15 s utterances (median over b.N dictations).
func BenchmarkReleaseToPaste(b *testing.B) {
	for _, seconds := range []float64{2, 5, 15} {
		b.Run(strconv.Itoa(int(seconds))+"s", func(b *testing.B) {
			desktopSession(b)
			wav, length := utterance(b, seconds)
			a := startApp(b, "")
			tg := openTarget(b)
			type row struct{ total, stop, feat, eng, paste float64 }
			var rows []row
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				before := countLines(a.log, "dictated")
				xdo(b, "keydown", "ctrl+shift+F9")
				time.Sleep(200 * time.Millisecond)
				if out, err := exec.Command("paplay", "--latency-msec=1000", "-d", "vmic", wav).CombinedOutput(); err != nil {
					b.Fatalf("paplay: %v %s", err, out)
				}
				time.Sleep(200 * time.Millisecond)
				xdo(b, "keyup", "ctrl+shift+F9")
				line := waitLine(b, a.log, "dictated", before, 60*time.Second)
				rows = append(rows, row{field(line, "release_to_paste_ms"), field(line, "capture_stop_ms"),
					field(line, "features_ms"), field(line, "engine_ms"), field(line, "paste_ms")})
				_ = tg
			}
			b.StopTimer()
			med := func(get func(row) float64) float64 {
				v := make([]float64, len(rows))
				for i, r := range rows {
					v[i] = get(r)
				}
				slices.Sort(v)
				return v[len(v)/2]
			}
			total, eng := med(func(r row) float64 { return r.total }), med(func(r row) float64 { return r.eng })
			b.ReportMetric(length, "audio_s")
			b.ReportMetric(total, "release_to_paste_ms")
			b.ReportMetric(med(func(r row) float64 { return r.stop }), "capture_stop_ms")
			b.ReportMetric(med(func(r row) float64 { return r.feat }), "features_ms")
			b.ReportMetric(eng, "engine_ms")
			b.ReportMetric(med(func(r row) float64 { return r.paste }), "paste_ms")
			b.ReportMetric(total/eng, "x_engine")
		})
	}
}

func countLines(path, word string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "msg="+word) {
			n++
		}
	}
	return n
}

func waitLine(b *testing.B, path, word string, skip int, limit time.Duration) string {
	b.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		f, err := os.Open(path)
		if err == nil {
			sc := bufio.NewScanner(f)
			n := 0
			for sc.Scan() {
				if strings.Contains(sc.Text(), "msg="+word) {
					if n == skip {
						f.Close()
						return sc.Text()
					}
					n++
				}
			}
			f.Close()
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatalf("no %q line in %s", word, path)
	return ""
}

func field(line, key string) float64 {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			x, _ := strconv.ParseFloat(v, 64)
			return x
		}
	}
	return 0
}
