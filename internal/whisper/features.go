package whisper

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Audio and feature constants of every Whisper model (faster-whisper's
// FeatureExtractor defaults).
const (
	SampleRate      = 16000                    // input samples per second
	NFFT            = 400                      // STFT frame length in samples (25 ms)
	HopLength       = 160                      // STFT hop in samples (10 ms)
	ChunkLength     = 30                       // seconds in one encoder window
	NSamples        = ChunkLength * SampleRate // samples in one encoder window
	NFrames         = NSamples / HopLength     // mel frames in one encoder window (3000)
	FramesPerSecond = SampleRate / HopLength   // mel frames per second (100)
	nFreqs          = NFFT/2 + 1               // one-sided FFT bins (201)
	padSamples      = 160                      // zeros faster-whisper appends before the STFT
	reflectPad      = NFFT / 2                 // center=True reflect padding on each side
	logFloor        = 1e-10                    // log10 clamp for silent bins
	dynRangeLog     = 8.0                      // log10 dynamic range kept below the maximum
	minParallel     = 256                      // frames per goroutine worth spawning for
	maxWorkers      = 4                        // goroutine bound for one LogMel call
)

// ErrNoAudio is returned by LogMel for an empty input.
var ErrNoAudio = errors.New("no audio samples")

// Mel is a normalised log-mel spectrogram, row-major [NMels][Frames].
type Mel struct {
	NMels, Frames int
	Data          []float32
}

// ContentFrames is the number of frames that carry audio: faster-whisper
// treats the last frame (made of the appended padding) as not content.
func (m *Mel) ContentFrames() int { return m.Frames - 1 }

// Window returns frames [seek, seek+size) of every bin, zero-padded (0.0 in
// the normalised domain, as pad_or_trim does) to NFrames frames and laid out
// [NMels][NFrames] row-major, ready for the encoder. Frames outside the
// spectrogram are padding and size is capped at NFrames.
func (m *Mel) Window(seek, size int) []float32 {
	return m.WindowN(seek, size, NFrames)
}

// WindowN is Window zero-padded to width frames instead of a full 30 s
// (width at most NFrames); the encoder accepts any width up to 3000.
func (m *Mel) WindowN(seek, size, width int) []float32 {
	width = min(max(width, 1), NFrames)
	out := make([]float32, m.NMels*width)
	size = min(size, width)
	seek = max(seek, 0)
	end := min(seek+size, m.Frames)
	if end <= seek {
		return out
	}
	for b := range m.NMels {
		copy(out[b*width:], m.Data[b*m.Frames+seek:b*m.Frames+end])
	}
	return out
}

// melFilter is one triangle of the filterbank: weights for FFT bins
// [start, start+len(w)).
type melFilter struct {
	start int
	w     []float32
}

// extractor holds everything LogMel precomputes for one mel count. It is
// immutable once built.
type extractor struct {
	nMels   int
	window  [NFFT]float32
	filters []melFilter
}

// spectrum is the power spectrum of real frames of one length, for one
// goroutine: gonum's FFT keeps work buffers, so each worker has its own.
// gonum replaced a mixed-radix FFT of our own: the same speed on NFFT = 400
// (12-14 µs a frame either way) and the same bins to 1e-9.
type spectrum struct {
	fft  *fourier.FFT
	coef []complex128
}

func newSpectrum(n int) *spectrum {
	return &spectrum{fft: fourier.NewFFT(n), coef: make([]complex128, n/2+1)}
}

// power writes |X[k]|² for k = 0…n/2 of x (length n) into out (length n/2+1).
func (s *spectrum) power(out, x []float64) {
	for k, c := range s.fft.Coefficients(s.coef, x) {
		out[k] = real(c)*real(c) + imag(c)*imag(c)
	}
}

// Built once per mel count on first use and read-only afterwards.
var (
	extractor80  = sync.OnceValue(func() *extractor { return newExtractor(80) })
	extractor128 = sync.OnceValue(func() *extractor { return newExtractor(128) })
)

func newExtractor(nMels int) *extractor {
	e := &extractor{nMels: nMels}
	// Periodic Hann, np.hanning(401)[:-1] in float64 then cast to float32.
	for n := range NFFT {
		e.window[n] = float32(0.5 - 0.5*math.Cos(2*math.Pi*float64(n)/float64(NFFT)))
	}
	full := slaneyFilters(nMels)
	e.filters = make([]melFilter, nMels)
	for i, row := range full {
		lo, hi := 0, len(row)
		for lo < hi && row[lo] == 0 {
			lo++
		}
		for hi > lo && row[hi-1] == 0 {
			hi--
		}
		f := melFilter{start: lo, w: make([]float32, hi-lo)}
		for k := lo; k < hi; k++ {
			f.w[k-lo] = float32(row[k])
		}
		e.filters[i] = f
	}
	return e
}

// slaneyFilters builds librosa's Slaney-scale, Slaney-normalised filterbank
// [nMels][nFreqs] in float64 exactly as faster-whisper's get_mel_filters.
func slaneyFilters(nMels int) [][]float64 {
	// Runtime float64 arithmetic (not exact Go constants) so every rounding
	// matches numpy's.
	fSp := 200.0 / 3.0 // Hz per mel in the linear part
	minLogHz := 1000.0
	minLogMel := minLogHz / fSp
	logStep := math.Log(6.4) / 27.0
	const maxMel = 45.245640471924965 // mel(8000 Hz), faster-whisper's literal
	pts := nMels + 2
	step := maxMel / float64(pts-1)
	freqs := make([]float64, pts)
	for i := range pts {
		mel := float64(i) * step // np.linspace, whose last point is exact
		if i == pts-1 {
			mel = maxMel
		}
		if mel >= minLogMel {
			freqs[i] = minLogHz * math.Exp(logStep*(mel-minLogMel))
		} else {
			freqs[i] = fSp * mel
		}
	}
	binHz := 1.0 / (float64(NFFT) * (1.0 / float64(SampleRate))) // np.fft.rfftfreq
	fftFreqs := make([]float64, nFreqs)
	for k := range nFreqs {
		fftFreqs[k] = float64(k) * binHz
	}
	rows := make([][]float64, nMels)
	for i := range nMels {
		rows[i] = make([]float64, nFreqs)
		lowDiff := freqs[i+1] - freqs[i]
		highDiff := freqs[i+2] - freqs[i+1]
		enorm := 2.0 / (freqs[i+2] - freqs[i])
		for k, f := range fftFreqs {
			lower := -(freqs[i] - f) / lowDiff
			upper := (freqs[i+2] - f) / highDiff
			rows[i][k] = max(0, min(lower, upper)) * enorm
		}
	}
	return rows
}

// LogMel computes faster-whisper's normalised log-mel spectrogram of mono
// 16 kHz samples in [-1, 1] with nMels (80 or 128) bins. The result has
// len(samples)/HopLength + 1 frames.
func LogMel(samples []float32, nMels int) (*Mel, error) {
	var e *extractor
	switch nMels {
	case 80:
		e = extractor80()
	case 128:
		e = extractor128()
	default:
		return nil, fmt.Errorf("log-mel: %d mel bins is not supported: use 80 (tiny…large-v2) or 128 (large-v3, turbo) as the model's config says", nMels)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("log-mel: %w: record some audio first", ErrNoAudio)
	}
	return e.logMel(samples), nil
}

func (e *extractor) logMel(samples []float32) *Mel {
	padded := newPaddedAudio(samples)
	frames := len(samples)/HopLength + 1
	mel := &Mel{NMels: e.nMels, Frames: frames, Data: make([]float32, e.nMels*frames)}

	workers := min(runtime.GOMAXPROCS(0), maxWorkers, (frames+minParallel-1)/minParallel)
	workers = max(workers, 1)
	maxes := make([]float32, workers)
	per := (frames + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, frames)
		wg.Go(func() { maxes[w] = e.frames(mel, padded, lo, hi) })
	}
	wg.Wait()

	top := float32(math.Inf(-1))
	for _, m := range maxes {
		top = max(top, m)
	}
	floor := top - dynRangeLog
	for i, v := range mel.Data {
		mel.Data[i] = (max(v, floor) + 4) / 4
	}
	return mel
}

// frames fills log10 mel energies of frames [lo, hi) into mel and returns
// their maximum.
func (e *extractor) frames(mel *Mel, padded paddedAudio, lo, hi int) float32 {
	x := make([]float64, NFFT)
	buf := make([]float32, NFFT)
	pow := make([]float64, nFreqs)
	spec := newSpectrum(NFFT)
	top := float32(math.Inf(-1))
	for f := lo; f < hi; f++ {
		seg := padded.frame(f, buf)
		for n, v := range seg {
			x[n] = float64(v * e.window[n]) // float32 product, as numpy does
		}
		spec.power(pow, x)
		for b, flt := range e.filters {
			var acc float64
			p := pow[flt.start : flt.start+len(flt.w)]
			for k, w := range flt.w {
				acc += float64(w) * float64(float32(p[k]))
			}
			v := float32(math.Log10(max(acc, logFloor)))
			mel.Data[b*mel.Frames+f] = v
			top = max(top, v)
		}
	}
	return top
}

// paddedAudio is samples followed by padSamples zeros, extended by
// reflectPad samples on each side with numpy's "reflect" mode (mirror without
// repeating the edge, periodically when the pad exceeds the signal), read in
// place: a copy would hold the recording twice (440 MiB more for 2 h).
type paddedAudio struct {
	samples []float32
	l       int // len(samples) + padSamples
}

func newPaddedAudio(samples []float32) paddedAudio {
	return paddedAudio{samples: samples, l: len(samples) + padSamples}
}

// at is sample i of the padded signal, whose first reflectPad samples come
// before samples[0].
func (p paddedAudio) at(i int) float32 {
	j := i - reflectPad // index into samples and their zeros
	if j < 0 || j >= p.l {
		period := 2 * (p.l - 1)
		j %= period
		if j < 0 {
			j += period
		}
		if j >= p.l {
			j = period - j
		}
	}
	if j < len(p.samples) {
		return p.samples[j]
	}
	return 0
}

// frame is the NFFT samples of frame f: a slice of samples where the frame
// lies within them, else written into buf.
func (p paddedAudio) frame(f int, buf []float32) []float32 {
	start := f*HopLength - reflectPad
	if start >= 0 && start+NFFT <= len(p.samples) {
		return p.samples[start : start+NFFT]
	}
	for n := range buf[:NFFT] {
		buf[n] = p.at(f*HopLength + n)
	}
	return buf[:NFFT]
}
