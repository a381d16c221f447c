package vad

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ModelFile is the Silero VAD v6 model's file name, as faster-whisper ships it.
const ModelFile = "silero_vad_v6.onnx"

// Detector scores audio for speech. It is safe for concurrent use.
type Detector struct {
	mu   sync.Mutex
	sess *ort.DynamicAdvancedSession
	log  *slog.Logger
}

// LibraryName is ONNX Runtime's shared library name on this OS.
func LibraryName() string {
	switch runtime.GOOS {
	case "windows":
		return "onnxruntime.dll"
	case "darwin":
		return "libonnxruntime.dylib"
	}
	return "libonnxruntime.so"
}

// Find returns the ONNX Runtime library and the model in dir (a folder
// holding both, as scripts/vad.sh and the installer lay them out).
func Find(dir string) (lib, model string, err error) {
	model = filepath.Join(dir, ModelFile)
	if _, err := os.Stat(model); err != nil {
		return "", "", fmt.Errorf("speech detector model: %w", err)
	}
	lib = filepath.Join(dir, LibraryName())
	if _, err := os.Stat(lib); err != nil {
		// Linux wheels name it with its version (libonnxruntime.so.1.32.0).
		m, _ := filepath.Glob(filepath.Join(dir, LibraryName()+".*"))
		if len(m) == 0 {
			return "", "", fmt.Errorf("ONNX Runtime library: %w", err)
		}
		lib = m[0]
	}
	return lib, model, nil
}

// envMu guards ONNX Runtime's process-wide environment, which
// onnxruntime_go keeps in package state: it can be set up once per process.
var envMu sync.Mutex

// Open loads ONNX Runtime from lib and the Silero model from model.
func Open(lib, model string, log *slog.Logger) (*Detector, error) {
	envMu.Lock()
	defer envMu.Unlock()
	if !ort.IsInitialized() {
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			return nil, fmt.Errorf("load ONNX Runtime %s: %w", lib, err)
		}
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime session options: %w", err)
	}
	defer opts.Destroy()
	// One thread: the model is tiny, and the CPU's cores belong to Whisper.
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("ONNX Runtime threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("ONNX Runtime threads: %w", err)
	}
	if err := opts.SetCpuMemArena(false); err != nil {
		return nil, fmt.Errorf("ONNX Runtime arena: %w", err)
	}
	sess, err := ort.NewDynamicAdvancedSession(model, []string{"input", "h", "c"}, []string{"speech_probs", "hn", "cn"}, opts)
	if err != nil {
		return nil, fmt.Errorf("load speech detector %s: %w", model, err)
	}
	return &Detector{sess: sess, log: log.With("pkg", "vad")}, nil
}

// Close frees the model.
func (d *Detector) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sess == nil {
		return nil
	}
	err := d.sess.Destroy()
	d.sess = nil
	return err
}

// Probs returns the speech probability of each 512-sample window of
// samples (16 kHz), zero-padded at the end as faster-whisper does.
func (d *Detector) Probs(samples []float32) ([]float32, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	n := len(samples)/Window + 1 // faster-whisper always pads, even a whole multiple
	padded := make([]float32, n*Window)
	copy(padded, samples)
	// faster-whisper zeroes the last 64 samples of the padded audio (a side
	// effect of building the context through a numpy view); so do we, to
	// score exactly the same input.
	clear(padded[len(padded)-contextSamples:])
	in := make([]float32, n*(Window+contextSamples))
	for i := range n {
		row := in[i*(Window+contextSamples):]
		if i > 0 {
			copy(row, padded[i*Window-contextSamples:i*Window])
		}
		copy(row[contextSamples:], padded[i*Window:(i+1)*Window])
	}
	// One run over every window from a zero state, as faster-whisper does.
	probs, _, _, err := d.infer(in, n, make([]float32, 128), make([]float32, 128))
	return probs, err
}

// Segments returns the speech in samples, as faster-whisper's
// get_speech_timestamps finds it with options o.
func (d *Detector) Segments(samples []float32, o Options) ([]Segment, error) {
	probs, err := d.Probs(samples)
	if err != nil {
		return nil, err
	}
	return segments(probs, len(samples), o), nil
}

// TrimPadMs is the padding Speech keeps around the speech: Whisper needs a
// lead-in and a tail to hear first and last syllables whole, and the
// detector's edges can fall inside a soft first or last word.
const TrimPadMs = 500

// The speech gate must never drop speech: a press it calls empty is never
// decoded. Silero's own threshold (0.5) misses whispers and quiet one-word
// answers (an espeak-ng whisper of "okay" peaks at 0.17, a whispered
// sentence at -30 dBFS at 0.48), while noise-only presses stay lower (pink
// noise, clicks, breathing and typing, 30 seeds each: no window above 0.2 and
// never two above 0.12). So a press counts as speech when Silero finds a
// segment or when at least faintWindows windows reach faintProb; only the
// rest, where Silero is sure, skips the engine.
const (
	faintProb    = 0.13
	faintWindows = 2
)

// faintGapWindows: faint windows this close (about half a second) to the
// speech's edge extend it; Silero's 0.5 threshold can start a whispered
// sentence a second late.
const faintGapWindows = 16

// Speech returns the range of samples that holds all the speech, padded by
// TrimPadMs, or ok false when the detector is sure there is none. It
// decides conservatively: faint speech (a whisper, a quiet word) counts and
// is kept whole, and faint windows next to clear speech widen its range.
func (d *Detector) Speech(samples []float32) (start, end int, ok bool, err error) {
	probs, err := d.Probs(samples)
	if err != nil {
		return 0, 0, false, err
	}
	return speechRange(probs, len(samples))
}

// speechRange is Speech on per-window probabilities for n samples.
func speechRange(probs []float32, n int) (start, end int, ok bool, err error) {
	o := DefaultOptions()
	o.SpeechPadMs = 0
	segs := segments(probs, n, o)
	var faint []int
	for i, p := range probs {
		if p >= faintProb {
			faint = append(faint, i)
		}
	}
	if len(segs) == 0 && len(faint) < faintWindows {
		return 0, 0, false, nil
	}
	if len(segs) == 0 {
		// Faint speech only: Silero cannot place a whisper's words (the
		// first second of one scores like silence), so all of it is kept.
		return 0, n, true, nil
	}
	// In windows: [first, last] holds the speech.
	first, last := segs[0].Start/Window, (segs[len(segs)-1].End-1)/Window
	for k := len(faint) - 1; k >= 0; k-- {
		if f := faint[k]; f < first && first-f <= faintGapWindows {
			first = f
		}
	}
	for _, f := range faint {
		if f > last && f-last <= faintGapWindows {
			last = f
		}
	}
	pad := sampleRate * TrimPadMs / 1000
	return max(0, first*Window-pad), min(n, (last+1)*Window+pad), true, nil
}
