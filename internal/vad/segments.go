package vad

import "math"

// Window is the samples Silero scores at a time (32 ms at 16 kHz); each
// window also sees the contextSamples before it.
const (
	Window         = 512
	contextSamples = 64
	sampleRate     = 16000
)

// Options are faster-whisper's VadOptions.
type Options struct {
	Threshold float32
	// NegThreshold 0 means max(Threshold-0.15, 0.01).
	NegThreshold     float32
	MinSpeechMs      int
	MaxSpeechSeconds float64 // 0 means no limit
	MinSilenceMs     int
	SpeechPadMs      int
}

// DefaultOptions are faster-whisper 1.2.1's VadOptions defaults.
func DefaultOptions() Options {
	return Options{Threshold: 0.5, MinSilenceMs: 2000, SpeechPadMs: 400}
}

// Segment is a stretch of speech in samples, [Start, End).
type Segment struct {
	Start, End int
}

// segments turns per-window speech probabilities for n samples into padded
// speech segments, as faster-whisper's get_speech_timestamps does.
func segments(probs []float32, n int, o Options) []Segment {
	neg := o.NegThreshold
	if neg == 0 {
		neg = max(o.Threshold-0.15, 0.01)
	}
	pad := float64(sampleRate * o.SpeechPadMs / 1000)
	minSpeech := float64(sampleRate*o.MinSpeechMs) / 1000
	maxSpeech := math.Inf(1)
	if o.MaxSpeechSeconds > 0 {
		maxSpeech = sampleRate*o.MaxSpeechSeconds - Window - 2*pad
	}
	minSilence := sampleRate * o.MinSilenceMs / 1000
	minSilenceAtMax := sampleRate * 98 / 1000

	var speeches []Segment
	triggered := false
	var cur Segment
	haveCur := false
	tempEnd, prevEnd, nextStart := 0, 0, 0
	for i, p := range probs {
		pos := Window * i
		if p >= o.Threshold && tempEnd != 0 {
			tempEnd = 0
			if nextStart < prevEnd {
				nextStart = pos
			}
		}
		if p >= o.Threshold && !triggered {
			triggered, cur, haveCur = true, Segment{Start: pos}, true
			continue
		}
		if triggered && float64(pos-cur.Start) > maxSpeech {
			if prevEnd != 0 {
				cur.End = prevEnd
				speeches = append(speeches, cur)
				haveCur = false
				if nextStart < prevEnd {
					triggered = false
				} else {
					cur, haveCur = Segment{Start: nextStart}, true
				}
				prevEnd, nextStart, tempEnd = 0, 0, 0
			} else {
				cur.End = pos
				speeches = append(speeches, cur)
				haveCur = false
				prevEnd, nextStart, tempEnd = 0, 0, 0
				triggered = false
				continue
			}
		}
		if p < neg && triggered {
			if tempEnd == 0 {
				tempEnd = pos
			}
			if pos-tempEnd > minSilenceAtMax {
				prevEnd = tempEnd
			}
			if pos-tempEnd < minSilence {
				continue
			}
			cur.End = tempEnd
			if float64(cur.End-cur.Start) > minSpeech {
				speeches = append(speeches, cur)
			}
			haveCur = false
			prevEnd, nextStart, tempEnd = 0, 0, 0
			triggered = false
		}
	}
	if haveCur && float64(n-cur.Start) > minSpeech {
		cur.End = n
		speeches = append(speeches, cur)
	}
	ipad := int(pad)
	for i := range speeches {
		s := &speeches[i]
		if i == 0 {
			s.Start = max(0, s.Start-ipad)
		}
		if i == len(speeches)-1 {
			s.End = min(n, s.End+ipad)
			continue
		}
		next := &speeches[i+1]
		gap := next.Start - s.End
		if gap < 2*ipad {
			s.End += gap / 2
			next.Start = max(0, next.Start-gap/2)
		} else {
			s.End = min(n, s.End+ipad)
			next.Start = max(0, next.Start-ipad)
		}
	}
	return speeches
}
