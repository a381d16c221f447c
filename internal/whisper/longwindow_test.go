package whisper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// joinClips is testenv.Joined under another name, for the long recordings.
func joinClips(tb testing.TB, clips []testenv.Clip, name string, names []string) testenv.Clip {
	tb.Helper()
	c := testenv.Joined(tb, clips, names...)
	c.Name = name
	return c
}

// pooledWER sums word errors over recordings, so that each word counts once
// whatever the length of its recording.
type pooledWER struct{ errs, words int }

// add scores one transcript into the pool and returns its own WER.
func (p *pooledWER) add(ref, hyp string) float64 {
	e, n := WordErrors(ref, hyp)
	p.errs += e
	p.words += n
	return float64(e) / float64(max(n, 1))
}

func (p pooledWER) String() string {
	return fmt.Sprintf("%.2f %%", 100*float64(p.errs)/float64(max(p.words, 1)))
}

// longRecordings joins one source's consecutive real-speech clips (and, for
// more voices, espeak dictations) with gaps of room noise into recordings of
// 10-30 s: the lengths where the short window's limit is decided.
func longRecordings(tb testing.TB) []testenv.Clip {
	tb.Helper()
	byName := map[string]testenv.Clip{}
	for _, c := range testenv.RealSpeech(tb) {
		byName[c.Name] = c
	}
	rng := rand.New(rand.NewPCG(3, 3))
	join := func(name string, parts []testenv.Clip) testenv.Clip { return testenv.Join(name, parts, rng) }
	var out []testenv.Clip
	lib := []string{"librivox_0870", "librivox_0880", "librivox_0890", "librivox_0920", "librivox_0930"}
	for i := range lib {
		for j := i + 2; j <= len(lib); j++ {
			var parts []testenv.Clip
			for _, n := range lib[i:j] {
				parts = append(parts, byName[n])
			}
			out = append(out, join(fmt.Sprintf("lib%d-%d", i, j), parts))
		}
	}
	var cards []testenv.Clip
	for i := 1; i <= 5; i++ {
		cards = append(cards, byName[fmt.Sprintf("cards_%03d", i)])
	}
	out = append(out, join("cards", cards))
	mixed := []testenv.Clip{byName["arctic_a0007"], byName["forever"], byName["arctic_a0009"], byName["goforward"], byName["amfm_sample"]}
	out = append(out, join("mixed", mixed))
	voices := [][]string{nil, {"-v", "en-us", "-s", "190"}, {"-v", "en+f3", "-s", "150"}}
	for k, n := range []int{3, 5, 8} {
		for vi, v := range voices {
			var parts []testenv.Clip
			for i := range n {
				s := dictations[(k*7+vi*3+i)%len(dictations)]
				parts = append(parts, testenv.Clip{Reference: s, Samples: testenv.SpeechWith(tb, s, v...)})
			}
			out = append(out, join(fmt.Sprintf("espeak%d-v%d", n, vi), parts))
		}
	}
	return out
}

// BenchmarkShortWindowLong decodes 10-30 s recordings on the full window and
// on short windows up to WHISPERKEY_LONG_MAX frames (default 2700), and
// prints each one's words, WER and engine time: the measurement behind
// shortWindow.maxFrames (docs/benchmarks.md).
//
//	go test -run '^$' -bench ShortWindowLong -benchtime 1x -v ./internal/whisper
func BenchmarkShortWindowLong(b *testing.B) {
	m := openBaseModel(b)
	m.UseSpeechDetector(vadtest.Open(b))
	maxFrames := 2700
	if v, err := strconv.Atoi(os.Getenv("WHISPERKEY_LONG_MAX")); err == nil {
		maxFrames = v
	}
	var fullErr, shortErr pooledWER
	var fullTime, shortTime time.Duration
	for _, c := range longRecordings(b) {
		opt := DefaultOptions()
		opt.Language = "en"
		opt.Window = FullWindow
		t0 := time.Now()
		full, err := m.Transcribe(context.Background(), c.Samples, opt)
		if err != nil {
			b.Fatal(err)
		}
		ft := time.Since(t0)
		sw := defaultShortWindow
		sw.maxFrames = maxFrames
		m.short = sw
		opt.Window = ShortWindow
		t0 = time.Now()
		short, err := m.Transcribe(context.Background(), c.Samples, opt)
		if err != nil {
			b.Fatal(err)
		}
		st := time.Since(t0)
		m.short = defaultShortWindow
		fw, sw2 := fullErr.add(c.Reference, full.Text), shortErr.add(c.Reference, short.Text)
		fullTime += ft
		shortTime += st
		b.Logf("%-12s %5.1fs full %5dms wer %.3f | %-10s %5dms wer %.3f %s\n  full:  %q\n  short: %q", c.Name, full.Duration,
			ft.Milliseconds(), fw, short.Path, st.Milliseconds(), sw2, short.FallbackReason, full.Text, short.Text)
	}
	b.Logf("pooled WER full %v short %v over %d words; time full %v short %v (%.2fx)", fullErr, shortErr, fullErr.words,
		fullTime.Round(time.Millisecond), shortTime.Round(time.Millisecond), float64(shortTime)/float64(fullTime))
}

// BenchmarkPrefixPieces measures a design for issue #33 that was not
// taken: the recording up to its last pause is decoded during the hold; at
// the release the whole recording is decoded with that decode's tokens forced
// as the decoder's prefix (all of its segments, or all but the last), so only
// the rest is generated. It prints the words and the time against a plain
// decode (docs/benchmarks.md, round four).
//
//	go test -run '^$' -bench PrefixPieces -benchtime 1x -v ./internal/whisper
func BenchmarkPrefixPieces(b *testing.B) {
	m := openBaseModel(b)
	m.UseSpeechDetector(vadtest.Open(b))
	sw := m.short
	ctx := context.Background()
	var errFull, errPre, errPre2 pooledWER
	var tFull, tPre time.Duration
	for _, c := range longRecordings(b) {
		if len(c.Gaps) == 0 {
			continue
		}
		opt := DefaultOptions()
		opt.Language = "en"
		opt.Window = ShortWindow
		head := append(append([]float32(nil), c.Samples[:c.Gaps[len(c.Gaps)-1]+SampleRate*128/1000]...), make([]float32, SampleRate*128/1000)...)
		first, err := m.Transcribe(ctx, head, opt)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		full, err := m.Transcribe(ctx, c.Samples, opt)
		if err != nil {
			b.Fatal(err)
		}
		ft := time.Since(t0)
		mel, err := LogMel(c.Samples, m.nMels)
		if err != nil {
			b.Fatal(err)
		}
		content := mel.Frames - 1
		width := min(NFrames, max(sw.floorFrames, content+sw.marginFrames))
		sot := m.tok.SOTSequence("en", "transcribe")
		decodePrefix := func(segs []Segment) (string, time.Duration) {
			var pre []int
			for _, s := range segs {
				pre = append(pre, s.Tokens...)
			}
			prompt, err := m.prompt(nil, sot, opt, true)
			if err != nil {
				b.Fatal(err)
			}
			prompt = append(prompt, pre...)
			win := wire.Window{ID: m.nextID.Add(1), NMels: m.nMels, Frames: width, Features: mel.WindowN(0, content, width)}
			t0 := time.Now()
			one := opt
			one.Temperatures = []float32{0}
			d, err := m.generateOnce(ctx, win, prompt, m.tok.SuppressTokens(), one, 24+8*content/100)
			if err != nil {
				b.Fatal(err)
			}
			took := time.Since(t0)
			var text []int
			for _, id := range d.tokens { // CTranslate2 returns the prefix too
				if id < m.tok.TimestampBegin() {
					text = append(text, id)
				}
			}
			return strings.TrimSpace(m.tok.Decode(text)), took
		}
		pre, pt := decodePrefix(first.Segments)
		pre2 := full.Text
		if len(first.Segments) > 1 {
			pre2, _ = decodePrefix(first.Segments[:len(first.Segments)-1])
		}
		fw, pw, p2 := errFull.add(c.Reference, full.Text), errPre.add(c.Reference, pre), errPre2.add(c.Reference, pre2)
		tFull += ft
		tPre += pt
		b.Logf("%-12s %5.1fs full %-6s %5dms wer %.3f | prefix %5dms wer %.3f | prefix-1 wer %.3f\n  full:     %q\n  prefix:   %q\n  prefix-1: %q\n  head:     %q",
			c.Name, full.Duration, full.Path, ft.Milliseconds(), fw, pt.Milliseconds(), pw, p2, full.Text, pre, pre2, first.Text)
	}
	b.Logf("pooled WER full %v prefix %v prefix-1 %v over %d words; time full %v prefix %v (%.2fx)",
		errFull, errPre, errPre2, errFull.words, tFull.Round(time.Millisecond), tPre.Round(time.Millisecond), float64(tPre)/float64(tFull))
}

// BenchmarkDecodeParts splits a decode's time, on the short window and on the
// full one, into encoding (with one step), generating, and generating with
// two thirds of the same tokens forced as a prefix.
//
//	go test -run '^$' -bench DecodeParts -benchtime 1x -v ./internal/whisper
func BenchmarkDecodeParts(b *testing.B) {
	m := openBaseModel(b)
	ctx := context.Background()
	for _, c := range longRecordings(b) {
		if !strings.HasPrefix(c.Name, "lib") && !strings.HasPrefix(c.Name, "espeak8") {
			continue
		}
		opt := DefaultOptions()
		opt.Language = "en"
		opt.Temperatures = []float32{0}
		mel, err := LogMel(c.Samples, m.nMels)
		if err != nil {
			b.Fatal(err)
		}
		content := mel.Frames - 1
		sot := m.tok.SOTSequence("en", "transcribe")
		prompt, _ := m.prompt(nil, sot, opt, true)
		for _, width := range []int{min(NFrames, max(1000, content+300)), NFrames} {
			win := wire.Window{ID: m.nextID.Add(1), NMels: m.nMels, Frames: width, Features: mel.WindowN(0, min(content, width), width)}
			t0 := time.Now()
			if _, err := m.generateOnce(ctx, win, prompt, m.tok.SuppressTokens(), opt, 1); err != nil {
				b.Fatal(err)
			}
			enc := time.Since(t0)
			// The worker keeps the window's encoding (by ID): from here on, only generating.
			t0 = time.Now()
			d, err := m.generateOnce(ctx, win, prompt, m.tok.SuppressTokens(), opt, 24+8*content/100)
			if err != nil {
				b.Fatal(err)
			}
			gen := time.Since(t0)
			half := d.tokens[:len(d.tokens)*2/3]
			t0 = time.Now()
			if _, err := m.generateOnce(ctx, win, append(append([]int(nil), prompt...), half...), m.tok.SuppressTokens(), opt, 24+8*content/100); err != nil {
				b.Fatal(err)
			}
			pre := time.Since(t0)
			b.Logf("%-12s %5.1fs width %4d: encode+1 step %4dms, generate %3d tokens %5dms, with 2/3 of them as prefix %5dms",
				c.Name, float64(content)/100, width, enc.Milliseconds(), len(d.tokens), gen.Milliseconds(), pre.Milliseconds())
		}
	}
}

// BenchmarkTailPieces measures issue #33's pieces with the text so far as the
// prompt: the recording up to a gap is decoded as the app decodes a hold's
// early transcription (128 ms of the gap, then 128 ms of silence), and what
// follows the gap is decoded alone with the text before it as its prompt.
// "last": one cut, at the last gap; "every N s": a cut at every gap that
// ends a piece of at least N s. The recordings are longRecordings' and the
// telephone call's turns joined as scripts/bench_early.py joins them.
//
//	go test -run '^$' -bench TailPieces -benchtime 1x -v ./internal/whisper
func BenchmarkTailPieces(b *testing.B) {
	m := openBaseModel(b)
	m.UseSpeechDetector(vadtest.Open(b))
	ctx := context.Background()
	opt := DefaultOptions()
	opt.Language = "en"
	opt.Window = ShortWindow
	decode := func(x []float32, prompt string) string {
		o := opt
		o.InitialPrompt = prompt
		r, err := m.Transcribe(ctx, x, o)
		if err != nil {
			b.Fatal(err)
		}
		return r.Text
	}
	pad := SampleRate * 128 / 1000
	pieces := func(c testenv.Clip, cuts []int) string {
		var text []string
		from := 0
		for _, cut := range cuts {
			head := append(append([]float32(nil), c.Samples[from:cut+pad]...), make([]float32, pad)...)
			text = append(text, decode(head, strings.Join(text, " ")))
			from = cut
		}
		text = append(text, decode(c.Samples[from:], strings.Join(text, " ")))
		return strings.Join(text, " ")
	}
	every := func(c testenv.Clip, seconds int) []int {
		var cuts []int
		from := 0
		for _, cut := range c.Gaps {
			if cut-from >= seconds*SampleRate {
				cuts = append(cuts, cut)
				from = cut
			}
		}
		return cuts
	}
	clips := longRecordings(b)
	calls := []string{}
	for i := range 13 {
		calls = append(calls, fmt.Sprintf("callhome_%02d", i))
	}
	speech := testenv.RealSpeech(b)
	clips = append(clips, joinClips(b, speech, "callhome", calls), joinClips(b, speech, "callhome-long", []string{"callhome_10s", "callhome_25s"}))
	variants := []string{"whole", "last", "every 0 s", "every 5 s", "every 10 s"}
	pools := make([]pooledWER, len(variants))
	for _, c := range clips {
		if len(c.Gaps) == 0 {
			continue
		}
		texts := []string{decode(c.Samples, ""), pieces(c, c.Gaps[len(c.Gaps)-1:]), pieces(c, every(c, 0)), pieces(c, every(c, 5)), pieces(c, every(c, 10))}
		line := fmt.Sprintf("%-14s %5.1f s", c.Name, float64(len(c.Samples))/SampleRate)
		for i, text := range texts {
			w := pools[i].add(c.Reference, text)
			line += fmt.Sprintf(" | %s %.3f", variants[i], w)
		}
		for i, text := range texts {
			line += fmt.Sprintf("\n  %-10s %q", variants[i], text)
		}
		b.Log(line)
	}
	line := fmt.Sprintf("pooled WER over %d words:", pools[0].words)
	for i, v := range variants {
		line += fmt.Sprintf(" %s %v;", v, pools[i])
	}
	b.Log(line)
}

// BenchmarkReleaseFloor measures the least engine time a release can wait
// for on this machine with exact text (issue #33): the window holding the
// last word must be encoded after that word is heard, and the tokens after
// the last pause must be generated, even if every token before it were
// forced as a prefix for free. It prints, per recording, the encoding (with
// the first step), the cost of one generated token, the tokens after the
// last pause and their sum, the floor. The recordings are longRecordings'
// (10-30 s), the LibriVox clips of 3-7 s, and espeak joins of about 40 s.
//
//	go test -run '^$' -bench ReleaseFloor -benchtime 1x -v ./internal/whisper
func BenchmarkReleaseFloor(b *testing.B) {
	m := openBaseModel(b)
	ctx := context.Background()
	opt := DefaultOptions()
	opt.Language = "en"
	opt.Temperatures = []float32{0}
	sot := m.tok.SOTSequence("en", "transcribe")
	prompt, _ := m.prompt(nil, sot, opt, true)
	recs := longRecordings(b)
	for _, c := range testenv.RealSpeech(b) {
		if strings.HasPrefix(c.Name, "librivox") {
			c.Gaps = []int{0}
			recs = append(recs, c)
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for vi, v := range [][]string{nil, {"-v", "en-us", "-s", "190"}} {
		var parts []testenv.Clip
		for i := range 19 {
			s := dictations[(vi*5+i)%len(dictations)]
			parts = append(parts, testenv.Clip{Reference: s, Samples: testenv.SpeechWith(b, s, v...)})
		}
		recs = append(recs, testenv.Join(fmt.Sprintf("espeak19-v%d", vi), parts, rng))
	}
	// window decodes the frames [seek, content) the way the app does: a
	// short window up to shortWindow's limit, 30-s windows past it.
	window := func(mel *Mel, seek, content int) wire.Window {
		width := NFrames
		if content <= defaultShortWindow.maxFrames {
			width = min(NFrames, max(defaultShortWindow.floorFrames, content+defaultShortWindow.marginFrames))
		}
		return wire.Window{ID: m.nextID.Add(1), NMels: m.nMels, Frames: width, Features: mel.WindowN(seek, content-seek, width)}
	}
	for _, c := range recs {
		mel, err := LogMel(c.Samples, m.nMels)
		if err != nil {
			b.Fatal(err)
		}
		content := mel.Frames - 1
		seek := 0
		if content > NFrames { // the last 30-s window; its encoding costs the same wherever it starts
			seek = content - NFrames/2
		}
		win := window(mel, seek, content)
		t0 := time.Now()
		if _, err := m.generateOnce(ctx, win, prompt, m.tok.SuppressTokens(), opt, 1); err != nil {
			b.Fatal(err)
		}
		enc := time.Since(t0)
		t0 = time.Now()
		d, err := m.generateOnce(ctx, win, prompt, m.tok.SuppressTokens(), opt, 24+8*(content-seek)/100)
		if err != nil {
			b.Fatal(err)
		}
		perToken := time.Since(t0) / time.Duration(max(1, len(d.tokens)))
		// The tail: what was said after the last pause, decoded alone to count its tokens.
		tail := c.Samples[c.Gaps[len(c.Gaps)-1]:]
		tmel, err := LogMel(tail, m.nMels)
		if err != nil {
			b.Fatal(err)
		}
		td, err := m.generateOnce(ctx, window(tmel, 0, tmel.Frames-1), prompt, m.tok.SuppressTokens(), opt, 24+8*tmel.Frames/100)
		if err != nil {
			b.Fatal(err)
		}
		floor := enc + time.Duration(len(td.tokens))*perToken
		b.Logf("%-13s %5.1fs window %4d: encode+1 step %4dms, %5.1fms a token, %2d tokens after the last pause: floor %4dms",
			c.Name, float64(content)/100, win.Frames, enc.Milliseconds(), float64(perToken.Microseconds())/1000, len(td.tokens), floor.Milliseconds())
	}
}

// generateOnce decodes win at temperature 0 with at most limit new tokens.
func (t *Transcriber) generateOnce(ctx context.Context, win wire.Window, prompt, suppress []int, opt Options, limit int) (decoded, error) {
	return t.generateForced(ctx, win, prompt, nil, suppress, opt, limit)
}
