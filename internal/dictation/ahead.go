package dictation

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// SpeechStream scores a recording for speech as it arrives (vad.Stream);
// its Cut is the Pipeline's Trimmer's, so what it finds during a hold is
// what the release will find.
type SpeechStream interface {
	Write(samples []float32) error
	// Scored is the samples scored so far (whole windows).
	Scored() int
	// Cut is where the engine's input ends for a recording of n samples.
	Cut(n int) int
	// Voiced reports whether any window so far could be speech.
	Voiced() bool
}

// Ahead transcribes a dictation while its key is still held. Once the
// speech has been followed by the Trimmer's whole tail of non-speech, the
// recording up to the cut is exactly what the release would transcribe if
// nothing more is said, so it is transcribed then, in the background; at
// the release, Take hands over that result when no word came after it.
type Ahead[T any] struct {
	Stream SpeechStream
	// Read returns the samples captured from index from on (16 kHz); nil
	// when there are none yet.
	Read func(from int) []float32
	// Run transcribes as a release would, with the dictation's settings.
	Run func(ctx context.Context, samples []float32) (T, error)
	// Every is how often the capture is read (default 40 ms).
	Every time.Duration
	// Live: each result is of use while the key is held (Run shows it as
	// the words so far). A transcription that more speech makes stale then
	// runs on to its end, and one that ended is not counted as wasted when
	// the next pause decides how long to wait: otherwise, after the first
	// pause, every pause as short as it would wait longer and the words
	// shown would stay the first phrase's. The release cancels one still
	// running, as without Live.
	Live bool
	Log  *slog.Logger
}

// Hold follows one recording; Take or Drop ends it.
type Hold[T any] struct {
	a      Ahead[T]
	parent context.Context    // the dictation's: the transcriptions' context comes from it
	cancel context.CancelFunc // ends following (not a transcription in flight)
	done   chan struct{}      // closed when follow returns

	// Owned by follow until done, then by Take.
	samples []float32
	err     error   // the stream failed: no speculation
	cur     *run[T] // the latest speculation
	dropped []*run[T]
}

type run[T any] struct {
	cut    int
	stale  bool // more speech came after cut: the release cannot use it
	cancel context.CancelFunc
	done   chan struct{}
	start  time.Time
	took   time.Duration
	res    T
	err    error
}

// Outcome says what became of a hold's speculations, for the log and the
// benchmarks.
type Outcome struct {
	// Used: the release's transcript is the speculation's.
	Used bool
	// Waited is how long the release waited for it to finish.
	Waited time.Duration
	// Dropped counts the speculations not used; Wasted is the time they
	// ran (engine time spent for nothing).
	Dropped int
	Wasted  time.Duration
	// Trim, when the hold scored the whole release's recording, is the
	// Pipeline's Trimmer for it: the cut it found, with no second pass of
	// the detector over the recording at the release (7 ms per second of
	// audio). nil otherwise.
	Trim Trimmer
	// Grown: the release's recording is the hold's followed by more, so
	// what the hold's transcriptions decoded is of its start.
	Grown bool
}

// Follow starts following a recording from its first sample. ctx carries
// the dictation's values (its profile) to Run.
func (a Ahead[T]) Follow(ctx context.Context) *Hold[T] {
	if a.Every <= 0 {
		a.Every = 40 * time.Millisecond
	}
	if a.Log == nil {
		a.Log = slog.New(slog.DiscardHandler)
	}
	fctx, cancel := context.WithCancel(ctx)
	h := &Hold[T]{a: a, parent: ctx, cancel: cancel, done: make(chan struct{})}
	go h.follow(fctx)
	return h
}

func (h *Hold[T]) follow(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(h.a.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		more := h.a.Read(len(h.samples))
		if len(more) == 0 {
			continue
		}
		h.samples = append(h.samples, more...)
		if h.err = h.a.Stream.Write(more); h.err != nil {
			h.a.Log.Warn("speech detector failed; transcribing at the release", "err", h.err)
			return
		}
		h.consider()
	}
}

// consider starts a speculation when the speech so far has ended: its tail
// of non-speech is all scored.
func (h *Hold[T]) consider() {
	s := h.a.Stream
	if !s.Voiced() {
		return // no speech yet: no engine call
	}
	cut := s.Cut(math.MaxInt)
	// The cut is vad's tail after the speech; the transcription starts
	// once wait more has passed: as long as the engine has spent on
	// transcriptions the speaker went on past (the pause was inside the
	// dictation), so the work thrown away per hold stays bounded however
	// often the speaker pauses.
	ended := cut+h.wait(cut) <= s.Scored()
	if c := h.cur; c != nil && c.cut != cut && !c.stale {
		// More speech came: that transcription is of the wrong audio for
		// the release; live, its words are still the newest to show.
		c.stale = true
		if !h.a.Live {
			c.cancel()
			c.cancel = nil
		}
		h.dropped = append(h.dropped, c)
	}
	if !ended || (h.cur != nil && h.cur.cut == cut) {
		return
	}
	for _, d := range h.dropped {
		select {
		case <-d.done:
		default:
			return // one engine job at a time: the next tick looks again
		}
	}
	// Not from following's context: the release stops following and may
	// still want this transcription.
	rctx, cancel := context.WithCancel(whisper.Yielding(h.parent))
	r := &run[T]{cut: cut, cancel: cancel, done: make(chan struct{}), start: time.Now()}
	h.cur = r
	samples := h.samples[:cut:cut]
	go func() {
		defer close(r.done)
		r.res, r.err = h.a.Run(rctx, samples)
		r.took = time.Since(r.start)
	}()
}

// wait is how long past the cut a transcription waits to start, in
// samples: the engine time the hold's dropped transcriptions took, up to
// 4 s. A dropped transcription ran from its start, wait into a pause, to
// the pause's end (when its engine cuts the call short) or past it (when
// the call in flight finishes first), so with an engine that cuts short the
// hold's wasted time stays under its longest pause, and with one that
// does not, each drop makes the next wait longer. In a long hold, no wait
// while a whole 30-s window before the cut has not been through a finished
// transcription: the engine keeps such windows (whisper's memo), so that
// work is not thrown away when speech goes on, and the release decodes
// only what follows them.
func (h *Hold[T]) wait(cut int) int {
	if len(h.dropped) == 0 || cut/whisper.NSamples > h.finished()/whisper.NSamples {
		return 0
	}
	var took time.Duration
	for _, r := range h.dropped {
		if h.a.Live && r.ended() {
			continue // its words were shown: not wasted
		}
		took += r.ran()
	}
	return int(min(took, 4*time.Second).Seconds() * whisper.SampleRate)
}

// ran is how long r ran: all of it once done, so far while it runs.
func (r *run[T]) ran() time.Duration {
	select {
	case <-r.done:
		return r.took
	default:
		return time.Since(r.start)
	}
}

// ended reports whether r's transcription has returned, with no error.
func (r *run[T]) ended() bool {
	select {
	case <-r.done:
		return r.err == nil
	default:
		return false
	}
}

// finished is the longest audio a transcription of this hold has finished
// on, dropped or not.
func (h *Hold[T]) finished() int {
	longest := 0
	for _, r := range append([]*run[T]{h.cur}, h.dropped...) {
		if r == nil {
			continue
		}
		select {
		case <-r.done:
			if r.err == nil {
				longest = max(longest, r.cut)
			}
		default:
		}
	}
	return longest
}

// stop ends following and waits for it.
func (h *Hold[T]) stop() {
	h.cancel()
	<-h.done
}

// Take ends the hold with the release's recording: the speculation's
// result when it transcribed exactly the audio the release would (waiting
// for it to finish), ok false otherwise.
func (h *Hold[T]) Take(ctx context.Context, samples []float32) (res T, ok bool, o Outcome) {
	h.stop()
	defer func() { o.Dropped, o.Wasted = h.wasted(ok) }()
	if h.err != nil || len(samples) < len(h.samples) || !slices.Equal(samples[:len(h.samples)], h.samples) {
		return res, false, o
	}
	o.Grown = true
	if err := h.a.Stream.Write(samples[len(h.samples):]); err != nil {
		return res, false, o
	}
	cut := h.a.Stream.Cut(len(samples))
	o.Trim = knownCut(cut)
	c := h.cur
	if c == nil || cut != c.cut || c.stale {
		return res, false, o
	}
	start := time.Now()
	select {
	case <-c.done:
	case <-ctx.Done():
		return res, false, o
	}
	o.Waited = time.Since(start)
	if c.err != nil {
		return res, false, o
	}
	return c.res, true, Outcome{Used: true, Waited: o.Waited}
}

// knownCut is a Trimmer that has scored the recording already.
type knownCut int

func (k knownCut) Cut(samples []float32) (int, error) { return min(int(k), len(samples)), nil }

// Drop ends the hold without a result (Esc, a failed recording): a
// speculation in flight stops before its next engine call.
func (h *Hold[T]) Drop() Outcome {
	h.stop()
	n, took := h.wasted(false)
	return Outcome{Dropped: n, Wasted: took}
}

// wasted cancels the speculations not used and reports their count and
// the time they ran (so far, for one still running).
func (h *Hold[T]) wasted(used bool) (n int, took time.Duration) {
	runs := h.dropped
	if h.cur != nil && !h.cur.stale && !used {
		runs = append(runs, h.cur)
	}
	for _, r := range runs {
		if r.cancel != nil {
			r.cancel()
		}
		took += r.ran()
	}
	return len(runs), took
}
