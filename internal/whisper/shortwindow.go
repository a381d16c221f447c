package whisper

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/wire"
)

// Decoding paths recorded in Result.Path.
const (
	// PathShort: one decode of a window just longer than the audio.
	PathShort = "short"
	// PathFull: 30-s windows, exactly as faster-whisper decodes.
	PathFull = "full"
	// PathShortThenFull: the short window's result was rejected and the
	// audio was decoded again on the full window.
	PathShortThenFull = "short+full"
	// PathSilent: the audio held nothing to decode; no engine call was made.
	PathSilent = "silent"
)

// shortWindow holds the short-window policy. The encoder's cost grows with
// the window, so a 2-s dictation padded to 30 s spends ~95 % of it on zeros;
// but Whisper was trained on 30-s windows and, given much less, sometimes
// loops or mishears. The numbers below were chosen on the real-speech set
// (docs/benchmarks.md).
type shortWindow struct {
	// maxFrames: longer audio always gets the full window. Past about 19 s
	// the short decode mostly stops before the end of the audio (Whisper
	// leaves the last sentence to a next window), and the fallback then
	// costs a second decode.
	maxFrames int
	// floorFrames is the smallest window, marginFrames the zeros after the
	// audio: the model needs to "see" the end of speech to close it.
	floorFrames, marginFrames int
	// Acceptance guards; any one failing sends the audio to the full window.
	maxCompression  float64 // zlib compression ratio of the text
	minAvgLogProb   float64 // mean token log-probability
	maxNoSpeechProb float64 // <|nospeech|> probability at the start
	maxWordsPerSec  float64 // words per second of audio, plus slack words
	slackWords      float64
	// tailFrames of audio may follow the last timestamp: the speech
	// detector's padding, which holds no words.
	tailFrames int
	// maxBandDrop and minHighOverFloor: telephone-band audio (nothing
	// above ~4 kHz: a phone call, a Bluetooth headset's hands-free mode, a
	// prompt recorded at 8 kHz) is where the short window changed words that
	// no other check caught, so it goes straight to the full window. Audio
	// is narrowband when its loudest frames drop by more than maxBandDrop
	// from 1.2-2.4 kHz to 4.3-7.7 kHz (mean log-mel; wideband speech 0.11-1.07
	// on the big real-speech set, the telephone call 1.08-1.36), or when
	// 4.5-7.7 kHz rises less than minHighOverFloor above the spectrogram's
	// floor (nothing there at all: every clip sampled at 8 kHz measures
	// 0.00-0.05, wideband speech 0.12-0.96).
	maxBandDrop      float64
	minHighOverFloor float64
}

// ShortWindowLimit is the longest recording the short window decodes, in
// seconds (shortWindow.maxFrames); every text that names the limit is
// made from it or checked against it.
const ShortWindowLimit = 18

var defaultShortWindow = shortWindow{
	maxFrames:        ShortWindowLimit * SampleRate / HopLength,
	floorFrames:      1000,
	marginFrames:     300,
	maxCompression:   2.0,
	minAvgLogProb:    -0.8,
	maxNoSpeechProb:  0.4,
	maxWordsPerSec:   4.5,
	slackWords:       2,
	tailFrames:       30,
	maxBandDrop:      0.92,
	minHighOverFloor: 0.08,
}

// transcribeShort decodes audio of contentFrames frames once on a short
// window and fills res when the result passes every guard. It reports
// false (and res.Path/FallbackReason) when the caller must decode the full
// window instead.
func (t *Transcriber) transcribeShort(ctx context.Context, mel *Mel, contentFrames int, opt Options, res *Result) (bool, error) {
	start := time.Now()
	defer func() { res.Timings.ShortWindow = time.Since(start) }()
	sw := t.short
	if why := sw.narrowband(mel, 0, contentFrames); why != "" {
		res.Path, res.FallbackReason = PathFull, why
		return false, nil
	}
	width := min(NFrames, max(sw.floorFrames, contentFrames+sw.marginFrames))
	win := wire.Window{ID: t.nextID.Add(1), NMels: t.nMels, Frames: width, Features: mel.WindowN(0, contentFrames, width)}
	lang, prob, err := t.language(ctx, win, opt, contentFrames, false)
	if err != nil {
		return false, err
	}
	task := opt.Task
	if task == "" {
		task = "transcribe"
	}
	var previous []int
	if p := strings.TrimSpace(opt.InitialPrompt); p != "" {
		if previous, err = t.tok.Encode(promptTail(" " + p)); err != nil {
			return false, fmt.Errorf("initial prompt: %w", err)
		}
	}
	seconds := float64(contentFrames) / 100
	// Tokens per second of real speech stay under ~6 (words, punctuation and
	// timestamps); a decode that reaches the cap is looping.
	limit := 24 + int(math.Ceil(8*seconds))
	one := opt
	one.Temperatures = []float32{0}
	sot := t.tok.SOTSequence(lang, task)
	d, err := t.decodeShort(ctx, win, previous, sot, one, limit, t.forcedFor(opt, 0, previous))
	if err != nil {
		return false, err
	}
	segs, seek := t.splitByTimestamps(d.tokens, 0, 0, contentFrames)
	var texts []string
	var segments []Segment
	for _, s := range segs {
		text := t.segmentText(s.tokens)
		if s.start == s.end || strings.TrimSpace(text) == "" {
			continue
		}
		segments = append(segments, Segment{
			Start: s.start, End: min(s.end, seconds), Text: text, Tokens: s.tokens,
			AvgLogProb: d.avgLogProb, NoSpeechProb: float64(d.res.NoSpeechProb),
			CompressionRatio: d.compression, Temperature: d.temperature,
		})
		texts = append(texts, text)
	}
	text := strings.TrimSpace(strings.Join(texts, ""))
	// With timestamps on, a decode that ends on a word instead of a closing
	// timestamp stopped early: the short window's way of dropping the last word.
	unclosed := !opt.WithoutTimestamps && len(d.tokens) > 0 && d.tokens[len(d.tokens)-1] < t.tok.TimestampBegin()
	reason := sw.reject(d, text, len(d.tokens) >= limit, unclosed, seconds)
	if reason == "" && seek < contentFrames-sw.tailFrames {
		// The full path would decode the rest in another window.
		reason = fmt.Sprintf("decoding stopped %.2f s before the end of the audio", float64(contentFrames-seek)/100)
	}
	if reason == "" && d.forced > 0 && !t.forcedReaches(d, contentFrames) {
		reason = "the decode after the forced tokens stops short of the audio's end"
	}
	if reason != "" {
		res.Path, res.FallbackReason = PathShortThenFull, reason
		t.log.Debug("short window rejected", "reason", reason, "frames", width)
		return false, nil
	}
	res.Path = PathShort
	res.Language, res.LanguageProb = lang, prob
	res.Segments, res.Text = segments, text
	res.Forced, res.Last = d.forced, &Pass{Seek: 0, Previous: previous, Tokens: slices.Clone(d.tokens)}
	res.at = &commandWindow{win: win, sot: sot, frames: contentFrames}
	return true, nil
}

// reject returns why a short-window decode must not be trusted, or "".
func (sw shortWindow) reject(d decoded, text string, hitCap, unfinished bool, seconds float64) string {
	words := len(strings.Fields(text))
	switch {
	case text == "":
		return "no text"
	case hitCap:
		return "token limit reached"
	case unfinished:
		return "no closing timestamp"
	case float64(d.res.NoSpeechProb) > sw.maxNoSpeechProb:
		return fmt.Sprintf("no-speech probability %.2f", d.res.NoSpeechProb)
	case d.avgLogProb < sw.minAvgLogProb:
		return fmt.Sprintf("average log-probability %.2f", d.avgLogProb)
	case d.compression > sw.maxCompression:
		return fmt.Sprintf("compression ratio %.2f", d.compression)
	case float64(words) > sw.maxWordsPerSec*seconds+sw.slackWords:
		return fmt.Sprintf("%d words in %.1f s", words, seconds)
	case repeats(text):
		return "repeated phrase"
	}
	return ""
}

// repeats reports a phrase of one to six words said three or more times in
// a row ("front left front left front left"), or of longLoop words or more
// said twice in a row: Whisper's loops on too little context. A word said
// three times alone is allowed ("no, no, no"). The long loop was seen on the
// grown real-speech set (LJ001-0027: 20 words said again, 17 errors), where
// the compression ratio (1.9) let it through; a rejection costs a full-window
// decode, never words.
func repeats(text string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	const longLoop = 8
	for n := 1; n <= 6 || 2*n <= len(words); n++ {
		need := 3
		switch {
		case n == 1:
			need = 4
		case n >= longLoop:
			need = 2
		case n > 6:
			continue
		}
		for i := 0; i+n*need <= len(words); i++ {
			run := 1
			for j := i + n; j+n <= len(words) && equalWords(words[i:i+n], words[j:j+n]); j += n {
				run++
			}
			if run >= need {
				return true
			}
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// decodeShort decodes a short window once; with a vocabulary, a decode
// that writes none of its terms is replaced by one without it, as
// decodeWindow does. forced (nil: none) is forced after the prompt.
func (t *Transcriber) decodeShort(ctx context.Context, win wire.Window, previous, sot []int, opt Options, limit int, forced []int) (decoded, error) {
	prompt, err := t.prompt(previous, sot, opt, true)
	if err != nil {
		return decoded{}, err
	}
	d, err := t.generateForced(ctx, win, prompt, forced, t.tok.SuppressTokens(), opt, limit)
	if err != nil || !hasVocabulary(opt) || mentionsTerm(t.tok.Decode(d.tokens), opt.Vocabulary) {
		return d, err
	}
	plain := withoutVocabulary(opt)
	if prompt, err = t.prompt(previous, sot, plain, true); err != nil {
		return decoded{}, err
	}
	return t.generateForced(ctx, win, prompt, forced, t.tok.SuppressTokens(), plain, limit)
}

// generateForced decodes win at temperature 0 with forced after the prompt
// and at most limit new tokens (forced counted in limit: the result holds
// them too).
func (t *Transcriber) generateForced(ctx context.Context, win wire.Window, prompt, forced, suppress []int, opt Options, limit int) (decoded, error) {
	// CTranslate2 generates min(max_length/2, max_length - prompt) tokens.
	maxLen := min(maxLength, max(2*limit, limit+len(prompt)+len(forced)))
	return t.generateAt(ctx, win, append(slices.Clone(prompt), forced...), suppress, opt, 0, maxLen, len(forced))
}

// narrowband names why frames [from, from+frames) of mel are
// telephone-band audio (see maxBandDrop), or returns "".
func (sw shortWindow) narrowband(mel *Mel, from, frames int) string {
	drop, over := bandLevels(mel, from, frames)
	switch {
	case drop > sw.maxBandDrop:
		return fmt.Sprintf("telephone-band audio (band drop %.2f)", drop)
	case over < sw.minHighOverFloor:
		return fmt.Sprintf("telephone-band audio (nothing above 4.5 kHz: %.2f over the floor)", over)
	}
	return ""
}

// bandLevels measures the loudest quarter of frames of mel from frame from
// (80 bins), in Whisper's normalised log-mel units: drop, how much quieter
// 4.3-7.7 kHz (bins 64-79) is than 1.2-2.4 kHz (bins 30-49); over, how far
// 4.5-7.7 kHz (bins 66-79) is above the spectrogram's floor, its maximum
// less Whisper's dynamic range. Audio that was ever narrowband has only the
// floor up there. Large-v3's 128 bins are not measured (0, +Inf).
func bandLevels(mel *Mel, from, frames int) (drop, over float64) {
	if mel.NMels != 80 || frames <= 0 || from >= mel.Frames {
		return 0, math.Inf(1)
	}
	type frame struct{ total, drop, high float64 }
	fs := make([]frame, 0, frames)
	for f := from; f < min(from+frames, mel.Frames); f++ {
		var total, mid, high, top float64
		for b := range 80 {
			v := float64(mel.Data[b*mel.Frames+f])
			total += v
			switch {
			case b >= 30 && b < 50:
				mid += v / 20
			case b >= 64:
				high += v / 16
				if b >= 66 {
					top += v / 14
				}
			}
		}
		fs = append(fs, frame{total, mid - high, top})
	}
	slices.SortFunc(fs, func(a, b frame) int { return cmp.Compare(b.total, a.total) })
	n := max(1, len(fs)/4)
	var high float64
	for _, f := range fs[:n] {
		drop += f.drop
		high += f.high
	}
	floor := float64(slices.Max(mel.Data)) - dynRangeLog/4
	return drop / float64(n), high/float64(n) - floor
}
