package app

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// speculator hands each hold a speculation that has "transcribed" the
// recording to text when ready, and records what became of it.
type speculator struct {
	mu      sync.Mutex
	follows int
	taken   []bool // per Finish: ready
	dropped int
	ready   bool
}

func (s *speculator) Follow(context.Context, Request) Speculation {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.follows++
	return &speculation{s: s}
}

type speculation struct{ s *speculator }

func (p *speculation) Finish(context.Context, []float32) (Transcript, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	p.s.taken = append(p.s.taken, p.s.ready)
	if !p.s.ready {
		return Transcript{Text: "at the release", Wasted: 5 * time.Millisecond}, nil
	}
	return Transcript{Text: "early", Early: true}, nil
}

func (p *speculation) Drop() {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	p.s.dropped++
}

func TestEarlyTranscription(t *testing.T) {
	start, stop, cancel := Input{Trigger: TriggerStart}, Input{Trigger: TriggerStop}, Input{Trigger: TriggerCancel}
	cases := []struct {
		name      string
		ready     bool
		clips     [][]float32
		inputs    []Input
		want      []string
		wantCalls int32 // the Transcriber's: a followed hold is the speculation's to finish
		follows   int
		dropped   int
	}{
		{"ready at the release: pasted, no transcription", true, [][]float32{clip(1, 1)},
			[]Input{start, stop}, []string{"early"}, 0, 1, 0},
		{"not ready: transcribed at the release", false, [][]float32{clip(1, 1)},
			[]Input{start, stop}, []string{"at the release"}, 0, 1, 0},
		{"Esc drops it and pastes nothing", true, [][]float32{clip(1, 1)},
			[]Input{start, cancel}, nil, 0, 1, 1},
		{"a tap too short drops it", true, [][]float32{clip(0.1, 1)},
			[]Input{start, stop}, nil, 0, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sp := &speculator{ready: tc.ready}
			tr := &transcriber{}
			p := &paster{}
			a := New(Config{}, Deps{Recorder: &recorder{clips: tc.clips}, Transcriber: tr, Paster: p, Speculator: sp},
				slog.New(slog.NewTextHandler(io.Discard, nil)))
			drive(t, a, tc.inputs)
			if got := tr.calls.Load(); got != tc.wantCalls {
				t.Errorf("transcribed %d times at the release, want %d", got, tc.wantCalls)
			}
			if len(p.got) != len(tc.want) || (len(p.got) > 0 && p.got[0] != tc.want[0]) {
				t.Errorf("pasted %q, want %q", p.got, tc.want)
			}
			if sp.follows != tc.follows || sp.dropped != tc.dropped {
				t.Errorf("followed %d, dropped %d; want %d, %d", sp.follows, sp.dropped, tc.follows, tc.dropped)
			}
		})
	}
}

// A hold that begins while an earlier dictation is in the engine is not
// followed: that dictation goes first.
func TestNoEarlyTranscriptionWhileBusy(t *testing.T) {
	sp := &speculator{ready: true}
	tr := &transcriber{delay: 300 * time.Millisecond}
	p := &paster{}
	a := New(Config{}, Deps{Recorder: &recorder{clips: [][]float32{clip(1, 1), clip(1, 2)}}, Transcriber: tr, Paster: p, Speculator: &busyFirst{sp, false}},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	drive(t, a, []Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}, {Trigger: TriggerStart}, {Trigger: TriggerStop}})
	if sp.follows != 0 {
		t.Errorf("the hold during a transcription was followed")
	}
	if len(p.got) != 2 || p.got[0] != "one" || p.got[1] != "two" {
		t.Errorf("pasted %q", p.got)
	}
}

// busyFirst declines the first hold (so the first dictation goes to the
// slow transcriber) and hands the rest to s.
type busyFirst struct {
	s    *speculator
	seen bool
}

func (b *busyFirst) Follow(ctx context.Context, req Request) Speculation {
	if !b.seen {
		b.seen = true
		return nil
	}
	return b.s.Follow(ctx, req)
}
