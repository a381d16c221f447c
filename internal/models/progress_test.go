package models

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestProgressString(t *testing.T) {
	tests := []struct {
		name string
		p    Progress
		want string
	}{
		{name: "mid download", p: Progress{Model: "base.en", File: "model.bin", Done: 42_100_000, Total: 145_000_000, Rate: 12_300_000, ETA: 8 * time.Second}, want: "base.en: 42.1/145.0 MB · 12.3 MB/s · ETA 8s"},
		{name: "gigabytes, minutes", p: Progress{Model: "large-v3", Done: 1_000_000_000, Total: 3_090_000_000, Rate: 25_000_000, ETA: 83*time.Second + 600*time.Millisecond}, want: "large-v3: 1.00/3.09 GB · 25.0 MB/s · ETA 1m24s"},
		{name: "hours", p: Progress{Model: "large-v3", Done: 0, Total: 3_090_000_000, Rate: 500_000, ETA: 2*time.Hour + 3*time.Minute}, want: "large-v3: 0.00/3.09 GB · 500.0 kB/s · ETA 2h03m"},
		{name: "no rate yet", p: Progress{Model: "tiny", Total: 78_000_000}, want: "tiny: 0.0/78.0 MB"},
		{name: "complete", p: Progress{Model: "tiny", Done: 78_000_000, Total: 78_000_000, Rate: 9_000_000}, want: "tiny: 78.0/78.0 MB · 9.0 MB/s"},
		{name: "file name when no model", p: Progress{File: "config.json", Done: 500, Total: 2000}, want: "config.json: 0/2 kB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Fatalf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBar(t *testing.T) {
	tests := []struct {
		name  string
		done  int64
		total int64
		width int
		want  string
	}{
		{name: "empty", done: 0, total: 100, width: 12, want: "[>         ]"},
		{name: "half", done: 50, total: 100, width: 12, want: "[=====>    ]"},
		{name: "full", done: 100, total: 100, width: 12, want: "[==========]"},
		{name: "unknown total", done: 5, total: 0, width: 6, want: "[>   ]"},
		{name: "over", done: 150, total: 100, width: 6, want: "[====]"},
		{name: "too narrow", done: 1, total: 2, width: 1, want: "[>]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Bar(Progress{Done: tt.done, Total: tt.total}, tt.width)
			if got != tt.want {
				t.Fatalf("Bar = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMeter drives the meter with a made-up clock: 1 MB every 50 ms is
// 20 MB/s, reported at most every 100 ms, and always once at the end.
func TestMeter(t *testing.T) {
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	var got []Progress
	m := newMeter("base.en", 100_000_000, 10_000_000, 100*time.Millisecond, now, func(p Progress) { got = append(got, p) })
	if len(got) != 1 || got[0].Done != 10_000_000 {
		t.Fatalf("first report = %+v, want one at the resumed bytes", got)
	}
	for range 40 {
		clock = clock.Add(50 * time.Millisecond)
		m.add(1_000_000)
	}
	// 2 s at one report per 100 ms, plus the first.
	if len(got) != 21 {
		t.Fatalf("%d reports in 2 s, want 21", len(got))
	}
	last := got[len(got)-1]
	if math.Abs(last.Rate-20e6) > 1 {
		t.Fatalf("rate = %.0f, want 20 MB/s", last.Rate)
	}
	if last.Done != 50_000_000 || last.ETA != 2500*time.Millisecond {
		t.Fatalf("last = %+v, want Done 50 MB and ETA 2.5 s", last)
	}
	// The rate follows a slowdown gradually, not in one jump.
	for range 4 {
		clock = clock.Add(100 * time.Millisecond)
		m.add(1_000_000) // 10 MB/s
	}
	if r := got[len(got)-1].Rate; r <= 10e6 || r >= 20e6 {
		t.Fatalf("rate after slowing down = %.0f, want between 10 and 20 MB/s", r)
	}
	m.finish()
	if end := got[len(got)-1]; end.Done != end.Total || end.ETA != 0 {
		t.Fatalf("final report = %+v", end)
	}
	// The last report's rate is the whole run's average: 44 MB in 2.4 s.
	if r := got[len(got)-1].Rate; math.Abs(r-44e6/2.4) > 1 {
		t.Fatalf("final rate = %.0f, want the average %.0f", r, 44e6/2.4)
	}
}

// A copy that ends within the first rate window still reports a rate at the
// end (a fast disk copies 150 MB before any window closes).
func TestMeterFastCopyHasARate(t *testing.T) {
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	var got []Progress
	m := newMeter("base", 150_000_000, 0, 100*time.Millisecond, now, func(p Progress) { got = append(got, p) })
	for range 3 {
		clock = clock.Add(30 * time.Millisecond)
		m.add(50_000_000)
	}
	m.finish()
	end := got[len(got)-1]
	if math.Abs(end.Rate-150e6/0.09) > 1 || !strings.HasSuffix(end.String(), " · 1.7 GB/s") {
		t.Fatalf("final report = %+v (%q), want the average rate of 150 MB in 90 ms", end, end.String())
	}
}
