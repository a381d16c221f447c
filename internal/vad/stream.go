package vad

import (
	"errors"
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// The end of a dictation's speech, as the engine sees it: the recording is
// cut TailWindows windows after the last window scoring VoicedProb or more
// (the engine then hears 128 ms of digital silence, dictation.Silence). The
// cut depends only on the audio before it, so a transcription started
// during the hold, once that much non-speech has arrived, sees exactly what
// the release will hand over. VoicedProb is the speech gate's faint level:
// a soft last word scores above it (see faintProb), and a noise window that
// does too only moves the cut later.
const (
	VoicedProb  = faintProb
	TailWindows = 4 // 128 ms of the room, then 128 ms of silence: Whisper hears a last syllable whole
	// TailSamples is the audio kept after the last voiced window.
	TailSamples = TailWindows * Window
)

// Stream scores audio for speech as it arrives, one window per model run
// with the model's state carried, so scoring a recording in any number of
// pieces gives the same scores, bit for bit, as scoring it whole with Cut.
// A Stream is not safe for concurrent use.
type Stream struct {
	d      *Detector
	h, c   []float32
	tail   []float32 // samples not yet scored (under a window)
	ctx    []float32 // the contextSamples before the next window
	scored int       // samples in scored windows
	voiced int       // windows up to and including the last voiced one; 0: none
	probs  []float32
}

// NewStream starts scoring a recording from its first sample.
func (d *Detector) NewStream() *Stream {
	return &Stream{d: d, h: make([]float32, 128), c: make([]float32, 128), ctx: make([]float32, contextSamples)}
}

// Write scores every whole window that samples complete.
func (s *Stream) Write(samples []float32) error {
	s.tail = append(s.tail, samples...)
	for len(s.tail) >= Window {
		if err := s.score(s.tail[:Window]); err != nil {
			return err
		}
		s.tail = s.tail[Window:]
	}
	if cap(s.tail) > 4*Window {
		s.tail = append([]float32(nil), s.tail...) // let the scored audio go
	}
	return nil
}

// Scored is how many samples the windows scored so far hold.
func (s *Stream) Scored() int { return s.scored }

// Probs are the scores of the windows so far.
func (s *Stream) Probs() []float32 { return s.probs }

// Cut is where the engine's input ends for a recording of n samples that
// the stream has scored (all its whole windows): TailSamples after the last
// voiced window, or n when that is further or no window is voiced (the
// speech gate then decides). A partial last window is not scored: under
// 32 ms holds no word.
func (s *Stream) Cut(n int) int {
	if s.voiced == 0 {
		return n
	}
	return min(n, s.voiced*Window+TailSamples)
}

// Voiced reports whether a window so far scored VoicedProb or more.
func (s *Stream) Voiced() bool { return s.voiced > 0 }

func (s *Stream) score(win []float32) error {
	in := make([]float32, contextSamples+Window)
	copy(in, s.ctx)
	copy(in[contextSamples:], win)
	copy(s.ctx, win[Window-contextSamples:])
	p, err := s.d.run(in, s.h, s.c)
	if err != nil {
		return err
	}
	s.probs = append(s.probs, p)
	s.scored += Window
	if p >= VoicedProb {
		s.voiced = len(s.probs)
	}
	return nil
}

// Cut is Stream.Cut for a whole recording: where the engine's input ends.
func (d *Detector) Cut(samples []float32) (int, error) {
	s := d.NewStream()
	if err := s.Write(samples); err != nil {
		return len(samples), err
	}
	return s.Cut(len(samples)), nil
}

// run scores one window with context (contextSamples+Window samples),
// updating the state h and c in place.
func (d *Detector) run(in, h, c []float32) (float32, error) {
	probs, hn, cn, err := d.infer(in, 1, h, c)
	if err != nil {
		return 0, err
	}
	copy(h, hn)
	copy(c, cn)
	return probs[0], nil
}

// infer runs the model once on rows windows with their context (in holds
// rows × (contextSamples+Window) samples) from the LSTM state h, c, and
// returns each row's speech probability and the state after them, copied
// out of ONNX Runtime's memory.
func (d *Detector) infer(in []float32, rows int, h, c []float32) (probs, hn, cn []float32, err error) {
	input, err := ort.NewTensor(ort.NewShape(int64(rows), contextSamples+Window), in)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("speech detector input: %w", err)
	}
	defer input.Destroy()
	ht, err := ort.NewTensor(ort.NewShape(1, 1, 128), h)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("speech detector state: %w", err)
	}
	defer ht.Destroy()
	ct, err := ort.NewTensor(ort.NewShape(1, 1, 128), c)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("speech detector state: %w", err)
	}
	defer ct.Destroy()
	outputs := []ort.Value{nil, nil, nil}
	d.mu.Lock()
	if d.sess == nil {
		d.mu.Unlock()
		return nil, nil, nil, errors.New("speech detector is closed")
	}
	err = d.sess.Run([]ort.Value{input, ht, ct}, outputs)
	d.mu.Unlock()
	for _, o := range outputs {
		if o != nil {
			defer o.Destroy()
		}
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("speech detector: %w", err)
	}
	var got [3][]float32
	for i, o := range outputs {
		t, ok := o.(*ort.Tensor[float32])
		if !ok {
			return nil, nil, nil, fmt.Errorf("speech detector: unexpected output %T", o)
		}
		got[i] = append([]float32(nil), t.GetData()...)
	}
	if len(got[0]) != rows || len(got[1]) != 128 || len(got[2]) != 128 {
		return nil, nil, nil, fmt.Errorf("speech detector: outputs of %d, %d, %d values for %d windows", len(got[0]), len(got[1]), len(got[2]), rows)
	}
	return got[0], got[1], got[2], nil
}
