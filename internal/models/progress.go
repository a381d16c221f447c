package models

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Progress is a download's state, reported through the callback given to
// Pull at most about ten times a second and once more when it completes.
type Progress struct {
	// Model is the name the download was asked for ("base.en", "owner/name").
	Model string
	// File is the file being downloaded ("model.bin").
	File string
	// Done and Total count bytes of the whole model; Done includes bytes
	// kept from an earlier, interrupted download.
	Done, Total int64
	// Rate is bytes per second, smoothed over a few seconds.
	Rate float64
	// ETA is the time left at Rate; 0 when unknown.
	ETA time.Duration
}

// String renders the progress for a tray menu or a log line, e.g.
// "base.en: 42.1/145.0 MB · 12.3 MB/s · ETA 8s".
func (p Progress) String() string {
	var b strings.Builder
	name := p.Model
	if name == "" {
		name = p.File
	}
	if name != "" {
		b.WriteString(name)
		b.WriteString(": ")
	}
	div, unit, prec := byteUnit(p.Total)
	fmt.Fprintf(&b, "%.*f/%.*f %s", prec, float64(p.Done)/div, prec, float64(p.Total)/div, unit)
	if p.Rate > 0 {
		rdiv, runit, _ := byteUnit(int64(p.Rate))
		fmt.Fprintf(&b, " · %.1f %s/s", p.Rate/rdiv, runit)
		if p.ETA > 0 && p.Done < p.Total {
			fmt.Fprintf(&b, " · ETA %s", fmtETA(p.ETA))
		}
	}
	return b.String()
}

// Bar draws a progress bar exactly width columns wide, in ASCII so that any
// console shows it: "[=========>          ]".
func Bar(p Progress, width int) string {
	if width < 3 {
		width = 3
	}
	inner := width - 2
	frac := 0.0
	if p.Total > 0 {
		frac = math.Min(1, math.Max(0, float64(p.Done)/float64(p.Total)))
	}
	full := int(frac * float64(inner))
	var b strings.Builder
	b.WriteByte('[')
	b.WriteString(strings.Repeat("=", full))
	if full < inner {
		b.WriteByte('>')
		b.WriteString(strings.Repeat(" ", inner-full-1))
	}
	b.WriteByte(']')
	return b.String()
}

// byteUnit picks decimal units (as the hub shows sizes) for a byte count.
func byteUnit(n int64) (div float64, unit string, prec int) {
	switch {
	case n >= 1e9:
		return 1e9, "GB", 2
	case n >= 1e6:
		return 1e6, "MB", 1
	case n >= 1e3:
		return 1e3, "kB", 0
	default:
		return 1, "B", 0
	}
}

// FormatSize renders a size for messages, the model list and the tray's
// Model menu, so that each shows a model's size alike ("78.0 MB").
func FormatSize(n int64) string {
	div, unit, prec := byteUnit(n)
	return fmt.Sprintf("%.*f %s", prec, float64(n)/div, unit)
}

func fmtETA(d time.Duration) string {
	s := int64(math.Ceil(d.Seconds()))
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	}
}

// meter turns byte counts from the copy loop into throttled Progress
// callbacks with a smoothed rate. It is used by one goroutine at a time.
type meter struct {
	fn    func(Progress) // nil: no reports
	every time.Duration  // minimum time between reports
	now   func() time.Time
	p     Progress

	lastEmit   time.Time
	sampleAt   time.Time // start of the current rate window
	sampleDone int64     // Done at sampleAt
	startAt    time.Time // when the work began, for the average at the end
	startDone  int64     // Done at startAt (bytes kept from before)
}

const (
	// rateWindow is the shortest interval a rate sample is taken over, so
	// that bursts of tiny reads do not make the rate jump.
	rateWindow = 200 * time.Millisecond
	// rateTau is the smoothing time constant of the rate.
	rateTau = 3 * time.Second
)

func newMeter(model string, total, done int64, every time.Duration, now func() time.Time, fn func(Progress)) *meter {
	t := now()
	m := &meter{fn: fn, every: every, now: now, p: Progress{Model: model, Total: total, Done: done}, sampleAt: t, sampleDone: done, startAt: t, startDone: done}
	m.emit(t)
	return m
}

// file names the file now being downloaded.
func (m *meter) file(name string) { m.p.File = name }

// add counts n more bytes (negative when a file restarts from zero).
func (m *meter) add(n int64) {
	m.p.Done += n
	t := m.now()
	if n < 0 {
		m.sampleAt, m.sampleDone = t, m.p.Done
	}
	if dt := t.Sub(m.sampleAt); dt >= rateWindow {
		inst := float64(m.p.Done-m.sampleDone) / dt.Seconds()
		if m.p.Rate == 0 {
			m.p.Rate = inst
		} else {
			alpha := 1 - math.Exp(-dt.Seconds()/rateTau.Seconds())
			m.p.Rate += alpha * (inst - m.p.Rate)
		}
		m.sampleAt, m.sampleDone = t, m.p.Done
	}
	if t.Sub(m.lastEmit) >= m.every {
		m.emit(t)
	}
}

// finish reports the final state (Done == Total) regardless of throttling,
// with the average rate of the whole run: a copy that ends before the first
// rate window still says how fast it went.
func (m *meter) finish() {
	t := m.now()
	if dt := t.Sub(m.startAt); dt > 0 && m.p.Done > m.startDone {
		m.p.Rate = float64(m.p.Done-m.startDone) / dt.Seconds()
	}
	m.p.Done = m.p.Total
	m.emit(t)
}

func (m *meter) emit(t time.Time) {
	m.lastEmit = t
	m.p.ETA = 0
	if m.p.Rate > 0 && m.p.Total > m.p.Done {
		m.p.ETA = time.Duration(float64(m.p.Total-m.p.Done) / m.p.Rate * float64(time.Second))
	}
	if m.fn != nil {
		m.fn(m.p)
	}
}
