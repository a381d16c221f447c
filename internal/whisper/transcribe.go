package whisper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// Engine is what transcription needs from the engine worker.
type Engine interface {
	DetectLanguage(ctx context.Context, win wire.Window) ([]wire.LangProb, error)
	Generate(ctx context.Context, win wire.Window, req wire.GenerateRequest) (wire.GenerateResult, error)
}

// Options are faster-whisper's decoding options; DefaultOptions gives its defaults.
type Options struct {
	// Language is a code such as "en", or "" / "auto" to detect it.
	Language string
	// Languages, when Language is detected, limits it to these codes: the
	// likeliest of them in the model's one detection pass (langchoice.go).
	Languages []string
	// Recent are the languages of the last dictations, newest first: with no
	// Languages, a short clip is not taken for a language written in a script
	// none of them uses, unless the model is sure (langchoice.go).
	Recent []string
	// Task is "transcribe" or "translate".
	Task                      string
	BeamSize                  int
	BestOf                    int
	Patience                  float32
	LengthPenalty             float32
	RepetitionPenalty         float32
	NoRepeatNgramSize         int
	Temperatures              []float32
	CompressionRatioThreshold float64
	LogProbThreshold          float64
	NoSpeechThreshold         float64
	ConditionOnPreviousText   bool
	PromptResetOnTemperature  float32
	// InitialPrompt is text taken as already said before the audio: it sets
	// style (punctuation, capitals) and is dropped when the context resets.
	InitialPrompt string
	// Hotwords (faster-whisper's, as written) and Vocabulary (words and
	// phrases, written as "A, B, C.") are kept in front of every window's
	// previous-text prompt to bias spelling.
	Hotwords            string
	Vocabulary          []string
	Prefix              string
	WithoutTimestamps   bool
	MaxInitialTimestamp float32
	SuppressBlank       bool
	// Window is the window short audio is decoded on (FullWindow: 30 s,
	// as faster-whisper).
	Window Window
	// DetectSpeech runs the Transcriber's speech detector, when it has one,
	// before decoding: no speech means no decoding, and with ShortWindow the
	// silence after the speech may be cut (speech.go says when; the start is
	// never cut). Not in faster-whisper.
	DetectSpeech bool
	// WordTimestamps times every word, as faster-whisper's word_timestamps
	// (words.go). It needs an aligner (Transcriber.UseAligner) and decodes
	// on the full window, whose encoder output the alignment heads know.
	WordTimestamps bool
	// Held is what a hold's early transcriptions of this same recording,
	// shorter, decoded in their last window (Result.Last), oldest first:
	// the window they were of is decoded with what the last two agree on
	// forced as its prefix (held.go). Not in faster-whisper; nil: none.
	Held []Pass
	// Commands are spoken command phrases ("scratch that"): a short
	// utterance is scored against each by the model (commands.go) and
	// Result.Command says which, if any, was said. The app's dictations set
	// them; nil: no check.
	Commands []string
}

// Window is the window short audio is decoded on.
type Window uint8

const (
	// FullWindow pads every recording to a 30 s window, as faster-whisper does.
	FullWindow Window = iota
	// ShortWindow encodes short audio in a window just longer than the
	// speech, falling back to the full window when the result looks wrong
	// (shortwindow.go). Not in faster-whisper.
	ShortWindow
	// AutoWindow is ShortWindow on the CPU, where encoding the 30 s of
	// padding is most of a short dictation's wait, and FullWindow on a GPU,
	// where it is cheap. The engine's owner resolves it (Resolve); the
	// Transcriber takes it as FullWindow.
	AutoWindow
)

func (w Window) String() string { return [...]string{"full", "short", "auto"}[w] }

// Resolve is w for an engine on a CPU (cpu) or a GPU.
func (w Window) Resolve(cpu bool) Window {
	if w != AutoWindow {
		return w
	}
	if cpu {
		return ShortWindow
	}
	return FullWindow
}

// DefaultOptions are faster-whisper 1.2.1's WhisperModel.transcribe defaults,
// plus WhisperKey's speech detector and, on the CPU, the short window
// (docs/benchmarks.md#short-window).
func DefaultOptions() Options {
	return Options{
		Task:                      "transcribe",
		BeamSize:                  choice.DefaultBeamSize,
		BestOf:                    5,
		Patience:                  1,
		LengthPenalty:             1,
		RepetitionPenalty:         1,
		Temperatures:              []float32{0, 0.2, 0.4, 0.6, 0.8, 1},
		CompressionRatioThreshold: 2.4,
		LogProbThreshold:          -1,
		NoSpeechThreshold:         0.6,
		ConditionOnPreviousText:   true,
		PromptResetOnTemperature:  0.5,
		MaxInitialTimestamp:       1,
		SuppressBlank:             true,
		Window:                    AutoWindow,
		DetectSpeech:              true,
	}
}

// Segment is one timed piece of the transcript.
type Segment struct {
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Text             string  `json:"text"`
	Tokens           []int   `json:"tokens"`
	AvgLogProb       float64 `json:"avg_logprob"`
	NoSpeechProb     float64 `json:"no_speech_prob"`
	CompressionRatio float64 `json:"compression_ratio"`
	Temperature      float32 `json:"temperature"`
	// Words are the segment's timed words, with Options.WordTimestamps.
	Words []Word `json:"words,omitempty"`
}

// Timings split where the time of a transcription went.
type Timings struct {
	Features time.Duration `json:"features_ns"`
	Engine   time.Duration `json:"engine_ns"`
	// ShortWindow is the part of Engine spent on a short-window attempt.
	ShortWindow time.Duration `json:"short_window_ns,omitempty"`
	// Commands is the spoken-command check after the decode (in Total, not
	// in Engine).
	Commands time.Duration `json:"commands_ns,omitempty"`
	// Speech is the speech detector's time (part of Total, not of Features).
	Speech time.Duration `json:"speech_ns,omitempty"`
	Total  time.Duration `json:"total_ns"`
}

// Result is a whole transcription.
type Result struct {
	Text         string    `json:"text"`
	Language     string    `json:"language"`
	LanguageProb float32   `json:"language_probability"`
	Duration     float64   `json:"duration"`
	Segments     []Segment `json:"segments"`
	Timings      Timings   `json:"timings"`
	// Path is how the text was decoded: PathShort, PathFull,
	// PathShortThenFull, PathSilent or PathNoSpeech; FallbackReason says why a
	// short window was rejected.
	Path           string `json:"path"`
	FallbackReason string `json:"fallback_reason,omitempty"`
	// Reused counts the whole 30-s windows an earlier transcription of the
	// same audio had decoded (memo.go): text ready sooner, the same words.
	Reused int `json:"reused_windows,omitempty"`
	// Forced counts the tokens forced from Options.Held, not generated.
	Forced int `json:"forced_tokens,omitempty"`
	// Last is the decode of the recording's last window, for a later
	// transcription of it grown longer (Options.Held); nil when that
	// window was skipped as silence.
	Last *Pass `json:"-"`
	// Command is the check of a short utterance against Options.Commands
	// (commands.go); nil when none was made.
	Command *CommandCheck `json:"command,omitempty"`
	// at is the one window the text was decoded on, for the command check;
	// nil for audio of more than one window.
	at *commandWindow
}

const (
	maxLength     = 448
	timePrecision = 0.02
	inputStride   = 2
)

// Transcriber runs faster-whisper's sequential decoding policy in Go over an engine.
type Transcriber struct {
	eng    Engine
	tok    *Tokenizer
	nMels  int
	log    *slog.Logger
	nextID atomic.Uint64
	short  shortWindow
	speech SpeechDetector
	// yielding, when set, runs the engine calls of work that gives way
	// (UseForYielding).
	yielding atomic.Pointer[engineRef]
	// aligner times words; noAligner says why there is none (UseAligner).
	aligner   Aligner
	noAligner error
	// memo keeps whole windows of long recordings decoded (memo.go).
	memo windowMemo
}

// NewTranscriber decodes with eng, whose model has nMels mel bins and the vocabulary of tok.
func NewTranscriber(eng Engine, tok *Tokenizer, nMels int, log *slog.Logger) *Transcriber {
	t := &Transcriber{eng: eng, tok: tok, nMels: nMels, log: log.With("pkg", "whisper"), short: defaultShortWindow}
	// Window IDs key the worker's encoder cache, which outlives any one
	// Transcriber; a random start keeps two of them from colliding.
	t.nextID.Store(rand.Uint64() >> 16)
	return t
}

// transcribe turns 16 kHz mono samples into text. Audio longer than 30 s is
// decoded window by window, each window starting where the last complete
// segment ended, so no words are dropped or repeated at the seams. With
// Options.Window ShortWindow, samples[from:to] (the speech) is tried on a short
// window first; a rejected attempt decodes all the samples exactly as
// without it, so the fallback's words are the full window's.
func (t *Transcriber) transcribe(ctx context.Context, samples []float32, from, to int, opt Options) (*Result, error) {
	start := time.Now()
	if len(samples) == 0 {
		return nil, ErrNoAudio
	}
	res := &Result{Duration: float64(len(samples)) / SampleRate}
	if isSilent(samples) {
		// Whisper invents text ("Thank you.") for silence; there is nothing to decode.
		res.Language, res.Path = opt.Language, PathSilent
		res.Timings.Total = time.Since(start)
		return res, nil
	}
	res.Path = PathFull
	var mel *Mel // the whole recording's features, once computed
	if opt.Window == ShortWindow && !opt.WordTimestamps && (to-from)/HopLength <= t.short.maxFrames {
		speech, err := LogMel(samples[from:to], t.nMels)
		if err != nil {
			return nil, fmt.Errorf("features: %w", err)
		}
		res.Timings.Features = time.Since(start)
		if from == 0 && to == len(samples) {
			mel = speech
		}
		engineStart := time.Now()
		ok, err := t.transcribeShort(ctx, speech, speech.Frames-1, opt, res)
		if err != nil {
			return nil, err
		}
		res.Timings.Engine = time.Since(engineStart)
		if ok {
			offset := float64(from) / SampleRate
			for i := range res.Segments {
				res.Segments[i].Start += offset
				res.Segments[i].End += offset
			}
			res.Timings.Total = time.Since(start)
			return res, nil
		}
	}
	if mel == nil {
		featStart := time.Now()
		var err error
		if mel, err = LogMel(samples, t.nMels); err != nil {
			return nil, fmt.Errorf("features: %w", err)
		}
		res.Timings.Features += time.Since(featStart)
	}
	engineStart := time.Now()
	contentFrames := mel.Frames - 1

	firstID := t.nextID.Add(1)
	// The first decoding window too: the worker encodes it once.
	firstWin := wire.Window{ID: firstID, NMels: t.nMels, Frames: NFrames, Features: mel.Window(0, min(NFrames, contentFrames))}
	lang, prob, err := t.language(ctx, firstWin, opt, contentFrames, contentFrames >= NFrames)
	if err != nil {
		return nil, err
	}
	res.Language, res.LanguageProb = lang, prob
	task := opt.Task
	if task == "" {
		task = "transcribe"
	}
	sot := t.tok.SOTSequence(lang, task)
	suppress := t.tok.SuppressTokens()

	var allTokens []int
	if p := strings.TrimSpace(opt.InitialPrompt); p != "" {
		ids, err := t.tok.Encode(promptTail(" " + p))
		if err != nil {
			return nil, fmt.Errorf("initial prompt: %w", err)
		}
		allTokens = append(allTokens, ids...)
	}
	promptResetSince := 0
	lastSpeech := 0.0 // where the last segment with words ended
	var texts []string
	for seek := 0; seek < contentFrames; {
		timeOffset := float64(seek) * 0.01
		size := min(NFrames, contentFrames-seek)
		win := firstWin // the same features, which the engine client sends once
		if seek > 0 {
			win = wire.Window{ID: t.nextID.Add(1), NMels: t.nMels, Frames: NFrames, Features: mel.Window(seek, size)}
		}
		audio := samples[min(seek*HopLength, len(samples)):min((seek+size)*HopLength, len(samples))]
		heard := t.hearsSpeech(audio, opt)
		var d decoded
		previous := allTokens[promptResetSince:]
		if size == NFrames {
			// A whole window: an earlier transcription of the same hold may have decoded it.
			var reused bool
			d, reused, err = t.decodeRemembered(ctx, win, audio, previous, sot, suppress, opt, seek == 0, heard)
			if reused {
				res.Reused++
			}
		} else {
			// The last, partial window: the one a hold's passes decoded.
			d, err = t.decodeTail(ctx, mel, win, seek, size, previous, sot, suppress, opt, t.forcedFor(opt, seek, previous), heard, res)
			res.Forced = d.forced
		}
		if err != nil {
			return nil, err
		}
		res.Last = &Pass{Seek: seek, Previous: slices.Clone(previous), Tokens: slices.Clone(d.tokens)}
		if !d.speechHeard && opt.NoSpeechThreshold != 0 && float64(d.res.NoSpeechProb) > opt.NoSpeechThreshold &&
			!(opt.LogProbThreshold != 0 && d.avgLogProb > opt.LogProbThreshold) {
			t.log.Debug("no speech: window skipped", "at_s", timeOffset, "no_speech_prob", d.res.NoSpeechProb,
				"avg_logprob", d.avgLogProb, "temperature", d.temperature)
			res.Last = nil
			seek += size
			continue
		}
		var segs []rawSegment
		windowSeek := seek
		segs, seek = t.splitByTimestamps(d.tokens, timeOffset, seek, size)
		if opt.WordTimestamps {
			if lastSpeech, err = t.addWords(ctx, win, sot, lang, segs, size, timeOffset, lastSpeech); err != nil {
				return nil, err
			}
			// The next window starts where the last word ended, as in faster-whisper.
			if end, ok := lastWordEnd(segs); ok && !t.singleTimestampEnding(d.tokens) && end > timeOffset {
				if next := int(math.RoundToEven(end * 100)); next > windowSeek {
					seek = next
				}
			}
		}
		for _, s := range segs {
			text := t.segmentText(s.tokens)
			if s.start == s.end || strings.TrimSpace(text) == "" {
				continue
			}
			allTokens = append(allTokens, s.tokens...)
			res.Segments = append(res.Segments, Segment{
				Start: s.start, End: s.end, Text: text, Tokens: s.tokens,
				AvgLogProb: d.avgLogProb, NoSpeechProb: float64(d.res.NoSpeechProb),
				CompressionRatio: d.compression, Temperature: d.temperature, Words: s.words,
			})
			texts = append(texts, text)
		}
		if !opt.ConditionOnPreviousText || d.temperature > opt.PromptResetOnTemperature {
			promptResetSince = len(allTokens)
		}
	}
	res.Text = strings.TrimSpace(strings.Join(texts, ""))
	if contentFrames <= NFrames {
		res.at = &commandWindow{win: firstWin, sot: sot, frames: contentFrames}
	}
	res.Timings.Engine += time.Since(engineStart)
	res.Timings.Total = time.Since(start)
	return res, nil
}

// decodeRemembered is decodeWindow through the memo: a whole window decoded
// before with the same inputs is not decoded again.
func (t *Transcriber) decodeRemembered(ctx context.Context, win wire.Window, audio []float32, previous, sot, suppress []int, opt Options, first bool, heard func() bool) (decoded, bool, error) {
	it, known, done, err := t.memo.begin(ctx, decodeKey(win, audio, previous, sot, suppress, opt, first))
	if err != nil || known {
		if known {
			t.log.Debug("window decoded before: reused", "window_id", win.ID)
		}
		return it.d, known, err
	}
	d, err := t.decodeWindow(remembered(ctx), win, previous, sot, suppress, opt, first, nil, heard)
	// Kept even when ctx has ended since: the window was decoded whole.
	done(memoItem{d: d}, err == nil)
	return d, false, err
}

// decodeWindow decodes one 30-s window with the temperature fallback. With
// a vocabulary, a decode that writes none of its terms is replaced by one
// without it (vocabulary.go says why).
//
// forced (nil: none) is forced after the prompt: a hold's agreed tokens
// (held.go), where a fallback to a higher temperature decodes the window
// whole again, as without them, rather than sample after words that were
// agreed at temperature 0.
func (t *Transcriber) decodeWindow(ctx context.Context, win wire.Window, previous, sot, suppress []int, opt Options, first bool, forced []int, heard func() bool) (decoded, error) {
	prompt, err := t.prompt(previous, sot, opt, first)
	if err != nil {
		return decoded{}, err
	}
	d, err := t.generateWithFallback(ctx, win, prompt, forced, suppress, opt, heard)
	if err != nil || !hasVocabulary(opt) || mentionsTerm(t.tok.Decode(d.tokens), opt.Vocabulary) {
		return d, err
	}
	plain := withoutVocabulary(opt)
	if prompt, err = t.prompt(previous, sot, plain, first); err != nil {
		return decoded{}, err
	}
	return t.generateWithFallback(ctx, win, prompt, forced, suppress, plain, heard)
}

// forcedFor is what opt.Held agrees on for the window at seek decoded after
// previous; nil without a hold, or with a text prefix of the caller's own.
func (t *Transcriber) forcedFor(opt Options, seek int, previous []int) []int {
	if strings.TrimSpace(opt.Prefix) != "" {
		return nil
	}
	forced := t.agreed(opt.Held, seek, previous)
	if len(opt.Held) > 0 {
		t.log.Debug("hold's passes", "passes", len(opt.Held), "seek", seek, "forced_tokens", len(forced))
	}
	return forced
}

// decodeTail decodes a recording's last window, size frames from seek
// (less than a whole window; full is it padded to 30 s), with forced as
// decodeWindow forces it. Past
// the first window and with Options.Window ShortWindow, it is tried first
// on a window just longer than its audio, as transcribeShort tries short
// recordings, with the same guards: a 40-s dictation's last 10 s then cost
// the encoder 13 s, not 30. A rejected attempt decodes the full window.
func (t *Transcriber) decodeTail(ctx context.Context, mel *Mel, full wire.Window, seek, size int, previous, sot, suppress []int,
	opt Options, forced []int, heard func() bool, res *Result) (decoded, error) {
	d, err := t.decodeTailWith(ctx, mel, full, seek, size, previous, sot, suppress, opt, forced, heard, res)
	if err != nil || d.forced == 0 || t.forcedReaches(d, size) {
		return d, err
	}
	t.log.Debug("forced prefix not kept: the decode stops short of the audio's end", "frames", size)
	return t.decodeTailWith(ctx, mel, full, seek, size, previous, sot, suppress, opt, nil, heard, res)
}

// forcedReaches reports whether d, a decode after forced tokens of a
// window of size frames, wrote words of its own and timed its last ones
// within a second of the audio's end. Forced text can mislead the model:
// when the words after the pause repeat the forced ones, it may take them
// as said and stop, losing what follows. The release's audio ends just
// after its speech (EngineInput), so a decode that ends earlier lost words.
func (t *Transcriber) forcedReaches(d decoded, size int) bool {
	ts := t.tok.TimestampBegin()
	own, last := false, -1
	for i, id := range d.tokens {
		switch {
		case id >= ts:
			last = id - ts
		case i >= d.forced:
			own = true
		}
	}
	return own && last*inputStride >= size-forcedEndSlack
}

// forcedEndSlack is how far before the audio's end, in frames, a decode
// after forced tokens may time its last words: a second, the shortest
// phrase it could drop.
const forcedEndSlack = 100

func (t *Transcriber) decodeTailWith(ctx context.Context, mel *Mel, full wire.Window, seek, size int, previous, sot, suppress []int,
	opt Options, forced []int, heard func() bool, res *Result) (decoded, error) {
	sw := t.short
	if seek == 0 || opt.Window != ShortWindow || opt.WordTimestamps || sw.narrowband(mel, seek, size) != "" {
		return t.decodeWindow(ctx, full, previous, sot, suppress, opt, seek == 0, forced, heard)
	}
	start := time.Now()
	width := min(NFrames, max(sw.floorFrames, size+sw.marginFrames))
	short := wire.Window{ID: t.nextID.Add(1), NMels: t.nMels, Frames: width, Features: mel.WindowN(seek, size, width)}
	one := opt
	one.Temperatures = []float32{0}
	d, err := t.decodeWindow(ctx, short, previous, sot, suppress, one, false, forced, nil)
	res.Timings.ShortWindow += time.Since(start)
	if err != nil {
		return decoded{}, err
	}
	segs, next := t.splitByTimestamps(d.tokens, 0, 0, size)
	var text strings.Builder
	for _, s := range segs {
		text.WriteString(t.segmentText(s.tokens))
	}
	seconds := float64(size) / 100
	unclosed := !opt.WithoutTimestamps && len(d.tokens) > 0 && d.tokens[len(d.tokens)-1] < t.tok.TimestampBegin()
	reason := sw.reject(d, strings.TrimSpace(text.String()), false, unclosed, seconds)
	if reason == "" && next < size-sw.tailFrames {
		reason = fmt.Sprintf("decoding stopped %.2f s before the end of the audio", float64(size-next)/100)
	}
	if reason == "" {
		return d, nil
	}
	t.log.Debug("short last window rejected", "reason", reason, "frames", width)
	return t.decodeWindow(ctx, full, previous, sot, suppress, opt, false, forced, heard)
}

// language returns the language to decode in: the requested one, "en" for
// English-only models, or the detected one (from the first window, of a clip
// of frames; one detected before on the same whole window is remembered),
// chosen among opt.Languages or guided by opt.Recent (chooseLanguage).
func (t *Transcriber) language(ctx context.Context, win wire.Window, opt Options, frames int, whole bool) (string, float32, error) {
	code, err := ResolveLanguage(opt.Language, "", t.tok.Languages())
	if err != nil {
		return "", 0, err
	}
	if !t.tok.Multilingual() {
		return "en", 1, nil
	}
	if code != "" {
		return code, 1, nil
	}
	if len(opt.Languages) == 1 && slices.Contains(t.tok.Languages(), opt.Languages[0]) {
		return opt.Languages[0], 1, nil // one language: nothing to detect
	}
	var done func(memoItem, bool)
	var probs []wire.LangProb
	if whole {
		it, known, d, err := t.memo.begin(ctx, languageKey(win))
		if err != nil {
			return "", 0, err
		}
		if known {
			probs = it.langs
		} else {
			done, ctx = d, remembered(ctx)
		}
	}
	if probs == nil {
		probs, err = t.detectLanguage(ctx, win)
		if done != nil {
			done(memoItem{langs: probs}, err == nil)
		}
		if err != nil {
			return "", 0, err
		}
	}
	best, why := chooseLanguage(probs, opt.Languages, opt.Recent, float64(frames)/100)
	if why != "" {
		t.log.Debug("language chosen over the likeliest", "rule", why, "language", best.Language,
			"probability", best.Probability, "likeliest", probs[0].Language, "likeliest_probability", probs[0].Probability)
	}
	return best.Language, best.Probability, nil
}

// detectLanguage asks the engine for the languages of win, likeliest first.
func (t *Transcriber) detectLanguage(ctx context.Context, win wire.Window) ([]wire.LangProb, error) {
	eng, ectx, err := t.engineFor(ctx)
	if err != nil {
		return nil, err
	}
	probs, err := eng.DetectLanguage(ectx, win)
	if err != nil {
		return nil, fmt.Errorf("detect language: %w", err)
	}
	if len(probs) == 0 {
		return nil, errors.New("detect language: no result")
	}
	return probs, nil
}

// prompt builds the decoder prompt as faster-whisper's get_prompt does, with
// one difference: hotwords and previous text share one budget of
// maxLength/2-1 tokens (faster-whisper gives each its own), so a long
// vocabulary never shrinks the tokens left for the transcript below half.
func (t *Transcriber) prompt(previous, sot []int, opt Options, first bool) ([]int, error) {
	half := maxLength/2 - 1
	var p []int
	hot := HotwordText(opt)
	prefix := ""
	if first {
		prefix = strings.TrimSpace(opt.Prefix)
	}
	if len(previous) > 0 || (hot != "" && prefix == "") {
		p = append(p, t.tok.SOTPrev())
		budget := half
		if hot != "" && prefix == "" {
			// Whole terms only: a term cut in half would be a new, wrong word.
			if kept, dropped := t.tok.FitVocabulary(opt); len(dropped) > 0 {
				o := opt
				o.Vocabulary = kept
				hot = HotwordText(o)
			}
			ids, err := t.tok.Encode(promptHead(" " + hot))
			if err != nil {
				return nil, fmt.Errorf("hotwords: %w", err)
			}
			if len(ids) > budget {
				ids = ids[:budget] // hotwords alone over the budget
			}
			p = append(p, ids...)
			budget -= len(ids)
		}
		if len(previous) > budget {
			previous = previous[len(previous)-budget:]
		}
		p = append(p, previous...)
	}
	p = append(p, sot...)
	if opt.WithoutTimestamps {
		p = append(p, t.tok.NoTimestamps())
	}
	if prefix != "" {
		ids, err := t.tok.Encode(promptHead(" " + prefix))
		if err != nil {
			return nil, fmt.Errorf("prefix: %w", err)
		}
		if len(ids) > half {
			ids = ids[:half]
		}
		if !opt.WithoutTimestamps {
			p = append(p, t.tok.TimestampBegin())
		}
		p = append(p, ids...)
	}
	return p, nil
}

// HotwordText joins Hotwords and the Vocabulary entries into the text that
// goes first in the previous-text prompt.
func HotwordText(opt Options) string {
	var parts, vocab []string
	if h := strings.TrimSpace(opt.Hotwords); h != "" {
		parts = append(parts, h)
	}
	for _, w := range opt.Vocabulary {
		if w = strings.TrimSpace(w); w != "" {
			vocab = append(vocab, w)
		}
	}
	if len(vocab) > 0 {
		// A list that ends like a sentence: the model then starts the
		// transcript as a new sentence, with a capital.
		parts = append(parts, strings.Join(vocab, ", ")+".")
	}
	return strings.Join(parts, " ")
}

type decoded struct {
	res         wire.GenerateResult
	tokens      []int
	avgLogProb  float64
	temperature float32
	compression float64
	// speechHeard: the speech detector overruled a silence verdict in this
	// window (generateWithFallback), so the no-speech rule does not drop it.
	speechHeard bool
	// forced counts the tokens forced from Options.Held.
	forced int
}

// generateWithFallback retries at rising temperatures while the output looks
// repetitive (compression ratio) or unlikely (average log-probability).
//
// faster-whisper stops at the first decode that is unlikely while the
// no-speech probability is high, and then drops the window as silence. It
// does so at any temperature; but a sample at 0.8 or 1.0 is unlikely by
// nature, and when a cooler decode of the same window was likely, the model
// did read words there: it was only looping. On a clear voice that Whisper
// rates 0.8-0.99 "no speech" (espeak-ng's), such verdicts dropped whole
// windows of 111 s of speech, and sometimes all of them (#34). So when a
// cooler decode was likely, heard (the speech detector on the window's
// audio; nil without one) has the last word: speech heard, the fallback goes
// on as for any failed decode and the window is kept. Without a detector,
// or when it hears nothing, the verdict stands as in faster-whisper.
//
// forced (nil: none) is first forced after prompt at temperature 0; a
// decode with it that would fall back is not kept, and the window is
// decoded whole, from temperature 0, as without it.
func (t *Transcriber) generateWithFallback(ctx context.Context, win wire.Window, prompt, forced, suppress []int, opt Options, heard func() bool) (decoded, error) {
	if len(forced) > 0 {
		d, err := t.generateAt(ctx, win, append(slices.Clone(prompt), forced...), suppress, opt, 0, maxLength, len(forced))
		if err != nil {
			return decoded{}, err
		}
		if !(opt.CompressionRatioThreshold != 0 && d.compression > opt.CompressionRatioThreshold) &&
			!(opt.LogProbThreshold != 0 && d.avgLogProb < opt.LogProbThreshold) {
			return d, nil
		}
		t.log.Debug("forced prefix not kept: the decode would fall back", "avg_logprob", d.avgLogProb, "compression_ratio", d.compression)
	}
	temps := opt.Temperatures
	if len(temps) == 0 {
		temps = []float32{0}
	}
	var all, belowCR []decoded
	likely, overruled := false, false // a decode so far was likely; the detector overruled a silence verdict
	for _, temp := range temps {
		d, err := t.generateAt(ctx, win, prompt, suppress, opt, temp, maxLength, 0)
		if err != nil {
			return decoded{}, err
		}
		res, avg := d.res, d.avgLogProb
		all = append(all, d)
		fallback := false
		if opt.CompressionRatioThreshold != 0 {
			if d.compression > opt.CompressionRatioThreshold {
				fallback = true
			} else {
				belowCR = append(belowCR, d)
			}
		}
		if opt.LogProbThreshold != 0 && avg < opt.LogProbThreshold {
			fallback = true
		}
		if opt.NoSpeechThreshold != 0 && float64(res.NoSpeechProb) > opt.NoSpeechThreshold &&
			opt.LogProbThreshold != 0 && avg < opt.LogProbThreshold {
			// Silence: nothing better will come from sampling; unless the
			// model read words here before and the detector hears speech.
			if !likely || heard == nil || !heard() {
				fallback = false
			} else if !overruled {
				overruled = true
				t.log.Debug("silence verdict overruled: the speech detector hears speech", "temperature", temp,
					"avg_logprob", avg, "no_speech_prob", res.NoSpeechProb)
			}
		}
		likely = likely || avg >= opt.LogProbThreshold
		if !fallback {
			d.speechHeard = overruled
			return d, nil
		}
		t.log.Debug("temperature fallback", "temperature", temp, "avg_logprob", avg, "compression_ratio", d.compression)
	}
	pool := belowCR
	if len(pool) == 0 {
		pool = all
	}
	best := pool[0]
	for _, d := range pool[1:] {
		if d.avgLogProb > best.avgLogProb {
			best = d
		}
	}
	best.temperature = temps[len(temps)-1]
	best.speechHeard = overruled
	return best, nil
}

// hearsSpeech returns a check, run at most once, of whether the speech
// detector hears speech in a window's samples; nil when there is no
// detector or Options.DetectSpeech is off. A detector that fails hears
// nothing: the window is judged as faster-whisper judges it.
func (t *Transcriber) hearsSpeech(samples []float32, opt Options) func() bool {
	if t.speech == nil || !opt.DetectSpeech {
		return nil
	}
	var heard, asked bool
	return func() bool {
		if !asked {
			asked = true
			_, _, ok, err := t.speech.Speech(samples)
			if err != nil {
				t.log.Warn("speech detector failed on a window; Whisper's no-speech rule decides", "err", err)
			}
			heard = ok && err == nil
		}
		return heard
	}
}

// generateAt decodes win once at temperature temp with faster-whisper's
// request, capping the whole sequence at maxLen tokens. The last forced
// tokens of prompt are forced text (Options.Held): they score 0, so the
// mean log-probability is of the tokens after them.
func (t *Transcriber) generateAt(ctx context.Context, win wire.Window, prompt, suppress []int, opt Options, temp float32, maxLen, forced int) (decoded, error) {
	req := wire.GenerateRequest{
		Prompt:                   prompt,
		LengthPenalty:            opt.LengthPenalty,
		RepetitionPenalty:        opt.RepetitionPenalty,
		NoRepeatNgramSize:        opt.NoRepeatNgramSize,
		MaxLength:                maxLen,
		ReturnScores:             true,
		ReturnNoSpeechProb:       true,
		SuppressBlank:            opt.SuppressBlank,
		SuppressTokens:           suppress,
		MaxInitialTimestampIndex: int(math.Round(float64(opt.MaxInitialTimestamp) / timePrecision)),
		SamplingTopK:             1,
		SamplingTemperature:      1,
		NumHypotheses:            1,
	}
	if temp > 0 {
		req.BeamSize, req.NumHypotheses, req.SamplingTopK, req.SamplingTemperature = 1, max(opt.BestOf, 1), 0, temp
		req.Patience = 1
	} else {
		req.BeamSize, req.Patience = max(opt.BeamSize, 1), opt.Patience
	}
	eng, ectx, err := t.engineFor(ctx)
	if err != nil {
		return decoded{}, err
	}
	// What the engine is asked, which serve --verbose shows (its config test reads it).
	t.log.Debug("decode", "window_id", win.ID, "beam_size", req.BeamSize, "temperature", temp)
	res, err := eng.Generate(ectx, win, req)
	if err != nil {
		return decoded{}, fmt.Errorf("decode at temperature %.1f: %w", temp, err)
	}
	if len(res.SequencesIDs) == 0 || len(res.Scores) == 0 {
		return decoded{}, errors.New("engine returned no hypothesis")
	}
	tokens := res.SequencesIDs[0]
	n := float64(len(tokens))
	// The score is the sum of the log-probabilities over n^penalty; the
	// forced tokens (in n: the result keeps them) add nothing to the sum.
	avg := float64(res.Scores[0]) * math.Pow(n, float64(opt.LengthPenalty)) / (max(n-float64(forced), 0) + 1)
	return decoded{res: res, tokens: tokens, avgLogProb: avg, temperature: temp, forced: forced,
		compression: compressionRatio(strings.TrimSpace(t.tok.decodeReplacing(tokens)))}, nil
}

type rawSegment struct {
	start, end float64
	tokens     []int
	words      []Word // with Options.WordTimestamps
}

// splitByTimestamps cuts a window's tokens into segments at consecutive
// timestamp pairs and returns where the next window starts.
func (t *Transcriber) splitByTimestamps(tokens []int, timeOffset float64, seek, size int) ([]rawSegment, int) {
	tsBegin := t.tok.TimestampBegin()
	isTS := func(id int) bool { return id >= tsBegin }
	n := len(tokens)
	singleEnding := t.singleTimestampEnding(tokens)
	var cuts []int
	for i := 1; i < n; i++ {
		if isTS(tokens[i]) && isTS(tokens[i-1]) {
			cuts = append(cuts, i)
		}
	}
	var segs []rawSegment
	if len(cuts) > 0 {
		if singleEnding {
			cuts = append(cuts, n)
		}
		last := 0
		for _, cut := range cuts {
			sl := tokens[last:cut]
			segs = append(segs, rawSegment{
				start:  timeOffset + float64(sl[0]-tsBegin)*timePrecision,
				end:    timeOffset + float64(sl[len(sl)-1]-tsBegin)*timePrecision,
				tokens: sl,
			})
			last = cut
		}
		if singleEnding {
			seek += size
		} else {
			seek += (tokens[last-1] - tsBegin) * inputStride
		}
		return segs, seek
	}
	duration := float64(size) * 0.01
	var lastTS = -1
	for _, id := range tokens {
		if isTS(id) {
			lastTS = id
		}
	}
	if lastTS >= 0 && lastTS != tsBegin {
		duration = float64(lastTS-tsBegin) * timePrecision
	}
	segs = append(segs, rawSegment{start: timeOffset, end: timeOffset + duration, tokens: tokens})
	return segs, seek + size
}

// singleTimestampEnding reports a decode that ends on one timestamp after
// text: the window's speech ran to its end.
func (t *Transcriber) singleTimestampEnding(tokens []int) bool {
	n := len(tokens)
	return n >= 2 && tokens[n-2] < t.tok.TimestampBegin() && tokens[n-1] >= t.tok.TimestampBegin()
}

// segmentText is the text of a segment's tokens as the Result carries it:
// sanitized (textproc.Sanitize), since the byte-level vocabulary can spell
// any control character and serve hands the text on as it is.
func (t *Transcriber) segmentText(tokens []int) string {
	return textproc.Sanitize(t.tok.Decode(tokens))
}

// compressionRatio is len(text) / len(zlib(text)), as faster-whisper
// computes it with Python's zlib (zlibSize says why not Go's).
func compressionRatio(text string) float64 {
	if text == "" {
		return 0
	}
	return float64(len(text)) / float64(zlibSize([]byte(text)))
}

// isSilent reports a clip in which nothing rises above the background:
// digital silence, a muted microphone, or steady noise and hum. Speech has
// syllables and pauses, so its 30 ms frame levels spread over tens of dB;
// stationary noise stays within a few. Whisper invents text ("Thank you.")
// for such clips, and the temperature fallback spends seconds doing it.
func isSilent(samples []float32) bool {
	const frame = SampleRate * 30 / 1000
	var levels []float64
	for i := 0; i < len(samples); i += frame {
		end := min(i+frame, len(samples))
		var sum float64
		for _, s := range samples[i:end] {
			sum += float64(s) * float64(s)
		}
		levels = append(levels, 10*math.Log10(sum/float64(end-i)+1e-20))
	}
	slices.Sort(levels)
	loud := levels[len(levels)*95/100]
	quiet := levels[len(levels)*10/100]
	const floor = -60   // dBFS: below this nothing is speech
	const minSpread = 6 // dB between loud and quiet frames
	return loud < floor || loud-quiet < minSpread
}
