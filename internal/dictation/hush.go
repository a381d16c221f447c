package dictation

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// NoSpeechLimit is how long a hands-free recording in which nothing is
// said runs, when hotkeys.stop_after_silence is shorter, before it ends as
// "Nothing heard": people take a moment to begin after the press, and a
// pause before the first word must not end the recording.
const NoSpeechLimit = 5 * time.Second

// cueMask is how much of the start of a recording the silence follower
// hears as silence when sound cues are on: the start cue (120 ms) and the
// output's latency. A laptop's microphone records the cue from its speakers,
// and the detector can take a chime for a word; speech that begins under the
// mask still counts once it runs past it, as any word does.
const cueMask = 300 * time.Millisecond

// hushPiece is the most audio written to the detector at once: half its
// window, so each write scores at most one window and the end of the speech
// is known to the window however late the capture is read.
const hushPiece = 256

// Hush is the Flow as the app's Silence: each recording that may run with no
// key holding it (hotkeys.stop_after_silence in toggle and auto mode, read at
// key-down) is followed
// with the speech detector, each new piece of the capture scored once, and
// stop is called when that much silence has followed the speech, or when
// nothing was said for NoSpeechLimit. stop (hotkey.Listener.StopHandsFree)
// ends the recording as a second press would; it must return when ctx ends.
func (f *Flow) Hush(stop func(ctx context.Context)) app.Silence {
	return hush{f: f, stop: stop, every: 40 * time.Millisecond}
}

type hush struct {
	f     *Flow
	stop  func(ctx context.Context)
	every time.Duration // how often the capture is read
}

// Follow is app.Silence's.
func (h hush) Follow(ctx context.Context, req app.Request) func() {
	after := h.f.fresh(req).Config.Hotkeys.HandsFree()
	log := h.f.cur.Load().log
	if after > 0 && (h.f.speech == nil || h.f.read == nil) {
		log.Warn("hotkeys.stop_after_silence needs the speech detector, which is not installed; the next press ends the recording")
	}
	if after <= 0 || h.f.speech == nil || h.f.read == nil || h.stop == nil {
		return func() {}
	}
	q := &quiet{stream: h.f.speech.Stream(), after: samplesOf(after), none: samplesOf(max(after, NoSpeechLimit))}
	if h.f.fresh(req).Config.Sounds {
		q.mask = samplesOf(cueMask)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ended, err := q.follow(ctx, h.f.read, h.every)
		switch {
		case err != nil:
			log.Warn("speech detector failed; the recording ends at the next press", "err", err)
		case ended:
			log.Info("recording ended by silence", "heard_speech", q.stream.Voiced(),
				"audio_ms", q.stream.Scored()*1000/whisper.SampleRate)
			h.stop(ctx)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

func samplesOf(d time.Duration) int { return int(d.Seconds() * whisper.SampleRate) }

// quiet measures the silence at the end of a recording as it arrives.
type quiet struct {
	stream      SpeechStream
	after, none int // samples of silence that end it: after speech, and with none yet
	mask        int // samples at the start scored as silence (cueMask)
	written     int // samples written to the stream
	cut         int // the stream's cut when the speech's end last moved
	spoke       int // samples scored then: the end of the last voiced window
}

// follow reads the capture every so often until the recording's silence is
// long enough (true) or ctx ends (false).
func (q *quiet) follow(ctx context.Context, read func(from int) []float32, every time.Duration) (bool, error) {
	t := time.NewTicker(every)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case <-t.C:
		}
		more := read(n)
		n += len(more)
		if ended, err := q.write(more); err != nil || ended {
			return ended, err
		}
	}
}

// write scores samples and reports whether the silence now ends the
// recording.
func (q *quiet) write(samples []float32) (bool, error) {
	for len(samples) > 0 {
		n := min(len(samples), hushPiece)
		piece := samples[:n]
		if q.written < q.mask {
			piece = slices.Clone(piece)
			clear(piece[:min(n, q.mask-q.written)])
		}
		if err := q.stream.Write(piece); err != nil {
			return false, err
		}
		q.written += n
		samples = samples[n:]
		if c := q.stream.Cut(math.MaxInt); q.stream.Voiced() && c != q.cut {
			q.cut, q.spoke = c, q.stream.Scored()
		}
	}
	if q.stream.Voiced() {
		return q.stream.Scored()-q.spoke >= q.after, nil
	}
	return q.stream.Scored() >= q.none, nil
}
