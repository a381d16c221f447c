package dictation_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// levelStream scores a window voiced when its samples average over 0.5, and
// cuts as vad.Stream does: tail windows after the last voiced one.
type levelStream struct {
	pending      []float32
	scored, last int // last: windows up to the last voiced one
}

const (
	win  = 512
	tail = 8 * win
)

func (s *levelStream) Write(x []float32) error {
	s.pending = append(s.pending, x...)
	for len(s.pending) >= win {
		var sum float32
		for _, v := range s.pending[:win] {
			sum += v
		}
		s.scored += win
		if sum/win > 0.5 {
			s.last = s.scored / win
		}
		s.pending = s.pending[win:]
	}
	return nil
}
func (s *levelStream) Scored() int  { return s.scored }
func (s *levelStream) Voiced() bool { return s.last > 0 }
func (s *levelStream) Cut(n int) int {
	if s.last == 0 {
		return n
	}
	return min(n, s.last*win+tail)
}

// mic is a recording that grows as the test speaks into it.
type mic struct {
	mu sync.Mutex
	s  []float32
	// caught: the follower has asked for samples past the end, so it has
	// scored (and acted on) all of them.
	caught bool
}

func (m *mic) say(windows int, level float32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for range windows * win {
		m.s = append(m.s, level)
	}
	m.caught = false
}

func (m *mic) read(from int) []float32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if from >= len(m.s) {
		m.caught = true
		return nil
	}
	return append([]float32(nil), m.s[from:]...)
}

// settle waits until the follower has acted on everything said, however
// late a loaded machine runs it.
func (m *mic) settle(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		m.mu.Lock()
		c := m.caught
		m.mu.Unlock()
		if c {
			return
		}
	}
	t.Fatal("the follower did not read the recording within 10 s")
}

func (m *mic) all() []float32 { return m.read(0) }

// engine records what it was asked to transcribe; each run takes took.
type engine struct {
	mu   sync.Mutex
	runs []int // lengths transcribed
	took time.Duration
	// cuts: the call in flight ends with its context, as on an engine of
	// the yielding work's own; otherwise a yielding context is checked
	// before the call, not during it.
	cuts bool
	busy atomic.Int32
}

func (e *engine) run(ctx context.Context, s []float32) (int, error) {
	e.busy.Add(1)
	defer e.busy.Add(-1)
	if e.busy.Load() > 1 {
		return 0, context.Canceled // two at once: the test fails on the count below
	}
	if e.cuts {
		select {
		case <-time.After(e.took):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	} else {
		time.Sleep(e.took)
	}
	e.mu.Lock()
	e.runs = append(e.runs, len(s))
	e.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return len(s), nil
}

func (e *engine) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.runs)
}

func TestAhead(t *testing.T) {
	type step struct {
		windows int
		level   float32
	}
	cases := []struct {
		name   string
		steps  []step
		used   bool
		cut    int // samples the used transcription covers
		runs   int // transcriptions started, at least
		noRuns bool
		idleAt int // the step before which no transcription may be running (0: none)
		cuts   bool
	}{
		{"silent tail: the hold's transcription is the release's",
			[]step{{20, 1}, {12, 0}}, true, 20*win + tail, 1, false, 0, false},
		{"released inside the tail: transcribed at the release",
			[]step{{20, 1}, {5, 0}}, false, 0, 0, true, 0, false},
		{"a word after the pause: the early one is dropped",
			[]step{{20, 1}, {12, 0}, {6, 1}}, false, 0, 1, false, 0, false},
		{"a word after the pause, then a longer pause: the second is used",
			[]step{{20, 1}, {12, 0}, {6, 1}, {20, 0}}, true, 38*win + tail, 2, false, 3, false},
		{"after a drop, a pause as short as the first waits longer",
			[]step{{20, 1}, {12, 0}, {6, 1}, {12, 0}}, false, 0, 1, false, 0, false},
		{"past a whole 30-s window, a short pause after a drop starts at once",
			[]step{{20, 1}, {12, 0}, {6, 1}, {1000, 1}, {12, 0}}, true, 1038*win + tail, 2, false, 3, false},
		{"no speech: no engine call",
			[]step{{40, 0}}, false, 0, 0, true, 0, false},
		// Each drop here wastes about one 150-ms step, so the wait after
		// four is about 0.6 s (19 windows); by count (0.25 s doubling) it
		// would be 2 s (62 windows), longer than the last pause.
		{"drops cut short keep the wait to what they cost: after four, a pause is used",
			[]step{{20, 1}, {40, 0}, {6, 1}, {40, 0}, {6, 1}, {40, 0}, {6, 1}, {40, 0}, {6, 1}, {40, 0}},
			true, 204*win + tail, 1, false, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &mic{}
			// An engine call longer than the pauses: the release comes while
			// the early transcription runs, and waits for it.
			e := &engine{took: 250 * time.Millisecond, cuts: tc.cuts}
			h := dictation.Ahead[int]{Stream: &levelStream{}, Read: m.read, Run: e.run, Every: 5 * time.Millisecond}.Follow(context.Background())
			for i, st := range tc.steps {
				if i > 0 && i == tc.idleAt {
					// A dropped transcription finishes its engine call; the
					// next starts only after it (one at a time).
					for deadline := time.Now().Add(10 * time.Second); e.busy.Load() > 0 && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
				}
				m.say(st.windows, st.level)
				m.settle(t)
				time.Sleep(150 * time.Millisecond) // as a speaker goes on
			}
			all := m.all()
			got, ok, o := h.Take(context.Background(), all)
			if ok != tc.used || o.Used != tc.used {
				t.Fatalf("used %v (outcome %+v), want %v", ok, o, tc.used)
			}
			if !ok {
				// The release's own transcription gets the hold's cut.
				whole := &levelStream{}
				if err := whole.Write(all); err != nil {
					t.Fatal(err)
				}
				if o.Trim == nil {
					t.Fatalf("outcome %+v: no Trim though the hold scored the recording", o)
				}
				if cut, _ := o.Trim.Cut(all); cut != whole.Cut(len(all)) {
					t.Errorf("the hold's cut %d, the whole recording's %d", cut, whole.Cut(len(all)))
				}
			}
			if ok && got != tc.cut {
				t.Errorf("transcribed %d samples, want %d", got, tc.cut)
			}
			if n := e.count(); n < tc.runs || (tc.noRuns && n > 0) {
				t.Errorf("%d transcriptions, want at least %d (none: %v)", n, tc.runs, tc.noRuns)
			}
			if !ok && e.count() > 0 && o.Dropped == 0 {
				t.Errorf("outcome %+v: the unused transcriptions are not counted", o)
			}
		})
	}
}

// Drop (Esc) stops a transcription in flight at its next engine call and
// leaves no goroutine behind.
func TestAheadDropStopsTheWork(t *testing.T) {
	m := &mic{}
	e := &engine{took: 100 * time.Millisecond}
	var yielding atomic.Bool
	run := func(ctx context.Context, s []float32) (int, error) {
		yielding.Store(whisper.IsYielding(ctx))
		return e.run(ctx, s)
	}
	h := dictation.Ahead[int]{Stream: &levelStream{}, Read: m.read, Run: run, Every: 5 * time.Millisecond}.Follow(context.Background())
	m.say(20, 1)
	m.say(12, 0)
	deadline := time.Now().Add(2 * time.Second)
	for e.busy.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if e.busy.Load() == 0 {
		t.Fatal("no transcription started after the pause")
	}
	h.Drop()
	if !yielding.Load() {
		t.Error("the hold's transcription does not yield: cancelling it would kill the engine worker")
	}
	for e.busy.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if e.busy.Load() != 0 {
		t.Fatal("the dropped transcription is still running")
	}
}

// Live text: every pause of a long hold brings newer words, even pauses as
// short as the first after a transcription the speaker went on past; without
// Live, such a pause waits out what the dropped one cost (and the words
// shown would stay the first phrase's).
func TestAheadLive(t *testing.T) {
	pause1, pause2, pause3 := 20*win+tail, 38*win+tail, 56*win+tail // the cuts
	for _, tc := range []struct {
		name  string
		live  bool
		shown []int // cuts whose text must be shown during the hold
		not   []int // cuts whose text must not be
	}{
		{"live: each pause's words", true, []int{pause1, pause2, pause3}, nil},
		{"not live: a short pause after a drop transcribes nothing", false, []int{pause3}, []int{pause2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &mic{}
			e := &engine{took: 250 * time.Millisecond}
			var mu sync.Mutex
			var shown []int
			run := func(ctx context.Context, s []float32) (int, error) {
				n, err := e.run(ctx, s)
				if err == nil {
					mu.Lock()
					shown = append(shown, n)
					mu.Unlock()
				}
				return n, err
			}
			has := func(cut int) bool {
				mu.Lock()
				defer mu.Unlock()
				return slices.Contains(shown, cut)
			}
			idle := func() {
				for deadline := time.Now().Add(10 * time.Second); e.busy.Load() > 0 && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			}
			h := dictation.Ahead[int]{Stream: &levelStream{}, Read: m.read, Run: run, Every: 5 * time.Millisecond, Live: tc.live}.Follow(context.Background())
			for _, st := range []struct {
				windows int
				level   float32
			}{{20, 1}, {12, 0}, {6, 1}, {12, 0}, {6, 1}, {12, 0}} {
				idle() // the pause's transcription has ended before the speaker goes on
				m.say(st.windows, st.level)
				m.settle(t)
				time.Sleep(50 * time.Millisecond)
			}
			// The microphone goes on with silence until the last words show.
			for deadline := time.Now().Add(10 * time.Second); !has(pause3) && time.Now().Before(deadline); {
				m.say(1, 0)
				m.settle(t)
				time.Sleep(20 * time.Millisecond)
			}
			idle()
			got, ok, _ := h.Take(context.Background(), m.all())
			if !ok || got != pause3 {
				t.Errorf("release: %d, %v; want the last pause's transcription (%d)", got, ok, pause3)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.IsSorted(shown) {
				t.Errorf("shown out of order: %v", shown)
			}
			for _, c := range tc.shown {
				if !slices.Contains(shown, c) {
					t.Errorf("shown %v: no text for the cut at %d", shown, c)
				}
			}
			for _, c := range tc.not {
				if slices.Contains(shown, c) {
					t.Errorf("shown %v: text for the cut at %d", shown, c)
				}
			}
		})
	}
}

// Live: a transcription the speaker went on past still ends and shows its
// words; the release, which cannot use it, does not wait for it.
func TestAheadLiveStaleRunsOn(t *testing.T) {
	m := &mic{}
	e := &engine{took: 300 * time.Millisecond}
	var ended atomic.Int32
	run := func(ctx context.Context, s []float32) (int, error) {
		n, err := e.run(ctx, s)
		if err == nil {
			ended.Add(1)
		}
		return n, err
	}
	h := dictation.Ahead[int]{Stream: &levelStream{}, Read: m.read, Run: run, Every: 5 * time.Millisecond, Live: true}.Follow(context.Background())
	m.say(20, 1)
	m.say(12, 0)
	for deadline := time.Now().Add(5 * time.Second); e.busy.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	m.say(6, 1) // while it runs
	m.settle(t)
	for deadline := time.Now().Add(5 * time.Second); e.busy.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if ended.Load() != 1 {
		t.Fatalf("%d transcriptions ended with text; want the stale one's", ended.Load())
	}
	if _, ok, o := h.Take(context.Background(), m.all()); ok || o.Dropped != 1 {
		t.Errorf("release used %v, outcome %+v; want the stale one dropped", ok, o)
	}
}
