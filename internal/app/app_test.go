package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder hands out prepared recordings in order.
type recorder struct {
	mu        sync.Mutex
	clips     [][]float32
	startErr  error
	cancelled int
}

func (r *recorder) Start() error { return r.startErr }
func (r *recorder) Stop() ([]float32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.clips[0]
	r.clips = r.clips[1:]
	return c, nil
}
func (r *recorder) Cancel() {
	r.mu.Lock()
	r.cancelled++
	r.clips = r.clips[1:]
	r.mu.Unlock()
}

// transcriber "recognises" a clip by its length in seconds, slowly, and
// records how many calls ran at once.
type transcriber struct {
	delay          time.Duration
	active, maxAct atomic.Int32
	calls          atomic.Int32
}

func (t *transcriber) Transcribe(ctx context.Context, _ Request, s []float32) (Transcript, error) {
	t.calls.Add(1)
	n := t.active.Add(1)
	defer t.active.Add(-1)
	for {
		m := t.maxAct.Load()
		if n <= m || t.maxAct.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(t.delay)
	if len(s) == 0 || s[0] == 0 {
		return Transcript{}, nil
	}
	if s[0] == 4 { // ended with a send phrase, which the pipeline removed
		return Transcript{Text: "four", Send: true}, nil
	}
	return Transcript{Text: map[float32]string{1: "one", 2: "two", 3: "three"}[s[0]]}, nil
}

type paster struct {
	mu  sync.Mutex
	got []string
}

func (p *paster) Output(_ context.Context, _ Request, text string, enter bool) (time.Time, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if enter {
		text += "⏎"
	}
	p.got = append(p.got, text)
	return time.Now(), nil
}

func clip(seconds float64, tag float32) []float32 {
	s := make([]float32, int(seconds*16000))
	for i := range s {
		s[i] = tag
	}
	return s
}

func TestDictations(t *testing.T) {
	cases := []struct {
		name      string
		clips     [][]float32
		inputs    []Input
		startErr  error
		want      []string
		wantCalls int32
		wantState State
	}{
		{"one dictation", [][]float32{clip(1, 1)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}, nil, []string{"one"}, 1, Idle},
		{"auto-send presses enter", [][]float32{clip(1, 2)},
			[]Input{{Trigger: TriggerStart, Send: true}, {Trigger: TriggerStop}}, nil, []string{"two⏎"}, 1, Idle},
		{"a spoken send presses enter", [][]float32{clip(1, 4)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}, nil, []string{"four⏎"}, 1, Idle},
		{"tap shorter than the minimum is dropped unheard", [][]float32{clip(0.1, 1)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}, nil, nil, 0, Idle},
		{"cancel discards", [][]float32{clip(1, 1)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerCancel}, {Trigger: TriggerStop}}, nil, nil, 0, Idle},
		{"nothing heard pastes nothing", [][]float32{clip(1, 0)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}, nil, nil, 1, Idle},
		{"presses while busy queue in order, never overlap", [][]float32{clip(1, 1), clip(1, 2), clip(1, 3)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}, {Trigger: TriggerStart}, {Trigger: TriggerStop},
				{Trigger: TriggerStart}, {Trigger: TriggerStop}}, nil, []string{"one", "two", "three"}, 3, Idle},
		{"another shortcut at once drops the take unheard", [][]float32{clip(0.1, 1)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerPassed}}, nil, nil, 0, Idle},
		{"another shortcut with no speech pastes nothing", [][]float32{clip(1, 0)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerPassed}}, nil, nil, 1, Idle},
		{"another shortcut after speech keeps the words", [][]float32{clip(1, 1)},
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerPassed}}, nil, []string{"one"}, 1, Idle},
		{"microphone error is reported and the app goes on", nil,
			[]Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}, errors.New("no microphone"), nil, 0, Error},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{clips: tc.clips, startErr: tc.startErr}
			tr := &transcriber{delay: 30 * time.Millisecond}
			p := &paster{}
			a := New(Config{}, Deps{Recorder: rec, Transcriber: tr, Paster: p}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			events := drive(t, a, tc.inputs)
			if got := tr.calls.Load(); got != tc.wantCalls {
				t.Errorf("transcriber called %d times, want %d", got, tc.wantCalls)
			}
			if tr.maxAct.Load() > 1 {
				t.Errorf("%d transcriptions overlapped", tr.maxAct.Load())
			}
			if len(p.got) != len(tc.want) {
				t.Fatalf("pasted %q, want %q", p.got, tc.want)
			}
			for i := range tc.want {
				if p.got[i] != tc.want[i] {
					t.Fatalf("pasted %q, want %q", p.got, tc.want)
				}
			}
			if last := events[len(events)-1].State; last != tc.wantState {
				t.Errorf("last state %v, want %v (events %+v)", last, tc.wantState, events)
			}
		})
	}
}

type sounds struct {
	mu     sync.Mutex
	played []string
}

func (s *sounds) Play(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.played = append(s.played, name)
}

// Settings changed while the app runs apply to the next recording:
// min_duration and sounds are live.
func TestReconfigureIsLive(t *testing.T) {
	rec := &recorder{clips: [][]float32{clip(0.5, 1), clip(0.5, 1)}}
	p, snd := &paster{}, &sounds{}
	a := New(Config{MinDuration: time.Second, Sounds: false},
		Deps{Recorder: rec, Transcriber: &transcriber{}, Paster: p, Sounds: snd},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	in := make(chan Input)
	done := make(chan error)
	go func() { done <- a.Run(context.Background(), in) }()
	idle := make(chan Event, 64)
	go func() {
		for e := range a.Events() {
			if e.State == Idle {
				idle <- e
			}
		}
		close(idle)
	}()
	dictate := func() Event {
		in <- Input{Trigger: TriggerStart}
		in <- Input{Trigger: TriggerStop}
		select {
		case e := <-idle:
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no idle event")
		}
		return Event{}
	}
	if e := dictate(); e.Text != "" || len(p.got) != 0 {
		t.Fatalf("0.5 s under a 1 s minimum: pasted %q, event %+v", p.got, e)
	}
	a.Reconfigure(Config{MinDuration: 200 * time.Millisecond, Sounds: true})
	if e := dictate(); e.Text != "one" || e.Outcome != Delivered {
		t.Fatalf("after lowering the minimum: event %+v, want %q delivered", e, "one")
	}
	close(in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(p.got) != 1 || p.got[0] != "one" {
		t.Fatalf("pasted %q, want [one]", p.got)
	}
	snd.mu.Lock()
	defer snd.mu.Unlock()
	if len(snd.played) == 0 || snd.played[0] != "start" {
		t.Fatalf("sounds after turning them on: %q", snd.played)
	}
}

// chooser names a profile per key press, as the focused window would.
type chooser struct{ names []string }

func (c *chooser) Choose() Request {
	n := c.names[0]
	c.names = c.names[1:]
	return profile(n)
}

// profile is a Request naming its profile alone.
type profile string

func (p profile) Profile() string { return string(p) }

// profileEcho reports the profile of the request in the text.
type profileEcho struct{}

func (profileEcho) Transcribe(_ context.Context, req Request, _ []float32) (Transcript, error) {
	return Transcript{Text: "to " + req.Profile()}, nil
}

type profilePaster struct{ got []string }

func (p *profilePaster) Output(_ context.Context, req Request, text string, _ bool) (time.Time, error) {
	p.got = append(p.got, req.Profile()+": "+text)
	return time.Now(), nil
}

func TestProfileChosenAtKeyDownTravelsWithTheDictation(t *testing.T) {
	rec := &recorder{clips: [][]float32{clip(1, 1), clip(1, 1)}}
	p := &profilePaster{}
	a := New(Config{}, Deps{Recorder: rec, Transcriber: profileEcho{}, Paster: p,
		Chooser: &chooser{names: []string{"terminal", ""}}}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	events := drive(t, a, []Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}, {Trigger: TriggerStart}, {Trigger: TriggerStop}})
	if strings.Join(p.got, "|") != "terminal: to terminal|: to " {
		t.Errorf("pasted %q", p.got)
	}
	var recording, finished []string
	for _, e := range events {
		switch {
		case e.State == Recording:
			recording = append(recording, e.Profile)
		case e.State == Idle && e.Text != "":
			finished = append(finished, e.Profile)
		}
	}
	if strings.Join(recording, ",") != "terminal," || strings.Join(finished, ",") != "terminal," {
		t.Errorf("events name profiles %q while recording and %q when done", recording, finished)
	}
}

// A tap is too short by the time the key was down, not by the audio: the
// pre-roll puts half a second of sound in front of every press.
func TestTapIsTooShortDespitePreRoll(t *testing.T) {
	t0 := time.Now()
	cases := []struct {
		name       string
		hold       time.Duration
		wantPasted bool
	}{
		{"0.1 s tap with 0.6 s of audio", 100 * time.Millisecond, false},
		{"0.3 s hold with 0.8 s of audio", 300 * time.Millisecond, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{clips: [][]float32{clip((tc.hold + 500*time.Millisecond).Seconds(), 1)}}
			p := &paster{}
			a := New(Config{MinDuration: 300 * time.Millisecond},
				Deps{Recorder: rec, Transcriber: &transcriber{}, Paster: p},
				slog.New(slog.NewTextHandler(io.Discard, nil)))
			events := drive(t, a, []Input{{Trigger: TriggerStart, At: t0}, {Trigger: TriggerStop, At: t0.Add(tc.hold)}})
			last := events[len(events)-1]
			if got := len(p.got) == 1; got != tc.wantPasted {
				t.Fatalf("pasted %q, want pasted %v (last status %q)", p.got, tc.wantPasted, last.Message)
			}
			if !tc.wantPasted && !strings.HasPrefix(last.Message, "Too short (0.1 s)") {
				t.Fatalf("status %q, want it to say the press was too short", last.Message)
			}
		})
	}
}

// drive runs a on inputs to the end and returns every event it sent.
func drive(t *testing.T, a *App, inputs []Input) []Event {
	t.Helper()
	in := make(chan Input)
	done := make(chan error)
	go func() { done <- a.Run(context.Background(), in) }()
	var events []Event
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for e := range a.Events() {
			events = append(events, e)
		}
	}()
	for _, i := range inputs {
		in <- i
	}
	close(in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-collected
	return events
}

// A cancelled recording is discarded unless Config.KeepCancelled, which
// stops it instead and hands it over on the Cancelled event; a dictation's
// last event carries its recording either way, for Recent to keep.
func TestCancelledRecordingKeptWhenAsked(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "discarded", true: "kept"}[keep], func(t *testing.T) {
			rec := &recorder{clips: [][]float32{clip(1, 2), clip(1, 1)}}
			a := New(Config{KeepCancelled: keep}, Deps{Recorder: rec, Transcriber: &transcriber{}, Paster: &paster{}},
				slog.New(slog.NewTextHandler(io.Discard, nil)))
			events := drive(t, a, []Input{{Trigger: TriggerStart}, {Trigger: TriggerCancel},
				{Trigger: TriggerStart}, {Trigger: TriggerStop}})
			var cancelled, delivered *Event
			for i, e := range events {
				switch e.Outcome {
				case Cancelled:
					cancelled = &events[i]
				case Delivered:
					delivered = &events[i]
				}
			}
			if cancelled == nil || delivered == nil {
				t.Fatalf("events %+v, want a Cancelled one and a Delivered one", events)
			}
			if keep && (len(cancelled.Audio) != 16000 || cancelled.Audio[0] != 2) {
				t.Errorf("cancelled event carries %d samples, want the cancelled recording's 16000", len(cancelled.Audio))
			}
			if !keep && (cancelled.Audio != nil || rec.cancelled != 1) {
				t.Errorf("cancelled event carries %d samples and the recorder was cancelled %d times; want none and once",
					len(cancelled.Audio), rec.cancelled)
			}
			if len(delivered.Audio) != 16000 || delivered.Audio[0] != 1 || delivered.Text != "one" {
				t.Errorf("delivered %q with %d samples, want \"one\" with its 16000", delivered.Text, len(delivered.Audio))
			}
		})
	}
}

// silence counts the recordings it follows and the watches ended.
type silence struct{ follows, stops atomic.Int32 }

func (s *silence) Follow(context.Context, Request) func() {
	s.follows.Add(1)
	return func() { s.stops.Add(1) }
}

// Each recording is followed for the stop after silence from its start,
// and the watch ends once with the recording, however it ends.
func TestSilenceFollowsEachRecording(t *testing.T) {
	rec := &recorder{clips: [][]float32{clip(1, 1), clip(1, 2), clip(1, 3)}}
	s := &silence{}
	a := New(Config{}, Deps{Recorder: rec, Transcriber: &transcriber{}, Paster: &paster{}, Silence: s},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	drive(t, a, []Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}, {Trigger: TriggerStop},
		{Trigger: TriggerStart}, {Trigger: TriggerCancel}, {Trigger: TriggerStart}})
	if f, st := s.follows.Load(), s.stops.Load(); f != 3 || st != 3 {
		t.Errorf("followed %d recordings, ended %d watches; want 3 and 3 (the last ends with Run)", f, st)
	}
}

// A recording ended by another shortcut (Ctrl+Win+D) with nothing said in it
// ends without a word on the indicator and without the stop sound.
func TestPassedIsQuiet(t *testing.T) {
	for _, c := range [][]float32{clip(0.1, 1), clip(1, 0)} {
		snd := &sounds{}
		a := New(Config{Sounds: true}, Deps{Recorder: &recorder{clips: [][]float32{c}}, Transcriber: &transcriber{}, Paster: &paster{}, Sounds: snd},
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		events := drive(t, a, []Input{{Trigger: TriggerStart}, {Trigger: TriggerPassed}})
		for _, e := range events[1:] { // after "Listening…"
			if e.Message != "" || e.Outcome == NothingHeard {
				t.Errorf("%.1f s take: event %+v, want none with a message", float64(len(c))/16000, e)
			}
		}
		snd.mu.Lock()
		if len(snd.played) != 1 || snd.played[0] != "start" {
			t.Errorf("%.1f s take: sounds %q, want only the start", float64(len(c))/16000, snd.played)
		}
		snd.mu.Unlock()
	}
}
