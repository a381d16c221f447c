package audio

// Sample rates every decoder accepts: below 1 kHz nothing is speech, and a
// bogus rate (1 Hz in a 66-byte FLAC) would make resampling ask for gigabytes.
const (
	MinRate = 1000
	MaxRate = 1_000_000
)

// pcmSink receives audio as a decoder produces it, so no decoder needs to
// hold a whole file's samples.
type pcmSink interface {
	// begin is called once, before any samples, with the stream's format.
	// What a header declares of the length is not passed: only decoded
	// frames count (a FLAC saying 2^36-1 samples may hold half a second).
	begin(rate, channels int) error
	// write takes interleaved frames; the slice is reused by the caller.
	write(interleaved []float32) error
}

// clipSink keeps the decoded frames as they are (DecodeWAV's Clip).
type clipSink struct{ clip Clip }

func (c *clipSink) begin(rate, channels int) error {
	c.clip.Rate, c.clip.Channels = rate, channels
	return nil
}

func (c *clipSink) write(s []float32) error {
	c.clip.Samples = append(c.clip.Samples, s...)
	return nil
}

// monoSink averages the channels, resamples to SampleRate as it goes and
// stops with ErrTooLong past lim.MaxAudio: what it holds is bounded by the
// limit, not by what a file declares or how well it compresses.
type monoSink struct {
	name     string
	lim      Limits
	rate     int
	channels int
	frames   int64 // frames written, at rate
	max      int64 // most frames allowed at rate; 0: no limit
	mono     []float32
	rs       *streamResampler // nil until samples at a rate other than SampleRate
	out      blocks
}

func newMonoSink(name string, lim Limits) *monoSink {
	return &monoSink{name: name, lim: lim}
}

func (m *monoSink) begin(rate, channels int) error {
	if rate < MinRate || rate > MaxRate {
		return kindErr(ErrCorruptAudio, "%s declares a sample rate of %d Hz (want %d to %d); the file is damaged or not audio — export it again",
			m.name, rate, MinRate, MaxRate)
	}
	if channels < 1 || channels > 255 {
		return kindErr(ErrCorruptAudio, "%s declares %d channels (want 1 to 255)", m.name, channels)
	}
	m.rate, m.channels = rate, channels
	if m.lim.MaxAudio > 0 {
		// A frame of slack keeps audio exactly at the limit.
		m.max = int64(m.lim.MaxAudio.Seconds()*float64(rate)) + 1
	}
	return nil
}

func (m *monoSink) write(s []float32) error {
	n := len(s) / m.channels
	if m.max > 0 && m.frames+int64(n) > m.max {
		return m.lim.tooLong(m.name, "")
	}
	m.frames += int64(n)
	mono := s[:n*m.channels]
	if m.channels > 1 {
		m.mono = m.mono[:0]
		scale := 1 / float32(m.channels)
		for i := range n {
			var v float32
			for _, x := range s[i*m.channels : (i+1)*m.channels] {
				v += x
			}
			m.mono = append(m.mono, v*scale)
		}
		mono = m.mono
	}
	if m.rate == SampleRate {
		m.out.append(mono...)
		return nil
	}
	if m.rs == nil { // built at the first samples: a file that has none costs no filter
		m.rs = newStreamResampler(m.rate, SampleRate)
	}
	m.rs.push(mono)
	return nil
}

// finish returns the samples at SampleRate.
func (m *monoSink) finish() []float32 {
	if m.rate != SampleRate && m.frames > 0 {
		if m.rs == nil {
			m.rs = newStreamResampler(m.rate, SampleRate)
		}
		return m.rs.finish()
	}
	return m.out.join()
}

// blocks collects samples in fixed blocks: growing one slice would hold the
// old and the new array at once, twice the audio, at every doubling.
type blocks struct {
	full [][]float32
	cur  []float32
	n    int
}

const blockLen = 1 << 18 // 16 s at 16 kHz

func (b *blocks) append(s ...float32) {
	for len(s) > 0 {
		if b.cur == nil {
			b.cur = make([]float32, 0, blockLen)
		}
		k := min(len(s), blockLen-len(b.cur))
		b.cur = append(b.cur, s[:k]...)
		b.n += k
		s = s[k:]
		if len(b.cur) == blockLen {
			b.full, b.cur = append(b.full, b.cur), nil
		}
	}
}

// join returns the samples in one slice (never nil).
func (b *blocks) join() []float32 {
	out := make([]float32, 0, b.n)
	for _, f := range b.full {
		out = append(out, f...)
	}
	return append(out, b.cur...)
}

// streamResampler is Resample over input that arrives in pieces: the output
// is the same, and only the filter's reach of input is kept.
type streamResampler struct {
	f        *polyphase
	up, down int64
	in       []float32 // input samples from absolute index off
	off      int64
	total    int64 // input samples pushed
	n        int64 // next output sample
	out      blocks
}

func newStreamResampler(from, to int) *streamResampler {
	g := gcd(from, to)
	up, down := to/g, from/g
	return &streamResampler{f: newPolyphase(from, to, up), up: int64(up), down: int64(down)}
}

// at is where output n sits: the first input of its filter row, and the row.
func (s *streamResampler) at(n int64) (int64, []float32) {
	num := n * s.down
	base, frac := num/s.up, num%s.up
	p := frac
	if int64(s.f.phases) != s.up {
		p = (frac*int64(s.f.phases) + s.up/2) / s.up
		if p == int64(s.f.phases) {
			p, base = 0, base+1
		}
	}
	return base - int64(s.f.half) + 1, s.f.coef[int(p)*s.f.taps : (int(p)+1)*s.f.taps]
}

func (s *streamResampler) push(x []float32) {
	s.in = append(s.in, x...)
	s.total += int64(len(x))
	s.drain(-1)
}

// drain computes the outputs whose rows lie within the input so far, or up
// to nOut (zeros past the end) when nOut >= 0.
func (s *streamResampler) drain(nOut int64) {
	taps := int64(s.f.taps)
	var batch [1024]float32
	k := 0
	for nOut < 0 || s.n < nOut {
		start, row := s.at(s.n)
		if nOut < 0 && start+taps > s.total {
			break
		}
		rel := start - s.off // negative only at the stream's start, where samples are zero
		if rel >= 0 && start+taps <= s.total {
			batch[k] = dot(row, s.in[rel:rel+taps])
		} else {
			batch[k] = edgeDot(row, s.in, int(rel))
		}
		s.n++
		if k++; k == len(batch) {
			s.out.append(batch[:]...)
			k = 0
		}
	}
	s.out.append(batch[:k]...)
	// Input before the next row's start is no longer needed.
	start, _ := s.at(s.n)
	if drop := start - s.off; drop > 0 && drop > int64(len(s.in))/2 {
		drop = min(drop, int64(len(s.in)))
		s.in = s.in[:copy(s.in, s.in[drop:])]
		s.off += drop
	}
}

func (s *streamResampler) finish() []float32 {
	s.drain((s.total*s.up + s.down - 1) / s.down)
	return s.out.join()
}
