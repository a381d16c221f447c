package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

type transcribeOptions struct {
	files       []string
	model       string
	language    string
	device      string
	computeType string
	beamSize    int
	threads     int
	json        bool
	verbose     bool
	// remote, when set, is an OpenAI-compatible server to send the audio to.
	remote, apiKey, remoteModel string
	words                       wordsFlags
	fullWindow                  bool
	shortWindow                 bool
	maxAudio                    time.Duration
}

// How much audio transcribe takes from one file. Every file is decoded
// before the model loads and held as 16 kHz float32 samples, 230 MB an
// hour; decoding and the features hold about three times that at their
// peak, and the program itself maps about 2 GB of address space. 2 hours
// keeps a file within a 4 GB address-space limit. A small file that declares
// days of audio is refused once decoding passes the limit, as serve refuses it.
const (
	transcribeMaxAudio    = 2 * time.Hour
	transcribeMaxAudioTop = 24 * time.Hour
)

func parseTranscribe(args []string, stderr io.Writer) (transcribeOptions, error) {
	var o transcribeOptions
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.model, "model", "", "model directory or name (default: the config's model, as the tray app uses it)")
	fs.StringVar(&o.language, "language", "auto", "language code such as en, or auto")
	fs.StringVar(&o.device, "device", "auto", "auto, cpu, cuda or rocm")
	fs.StringVar(&o.computeType, "compute-type", "", "CTranslate2 compute type (default: int8 on the CPU, the model's own type on a GPU)")
	fs.IntVar(&o.beamSize, "beam-size", 5, "beam size (1 = greedy)")
	fs.IntVar(&o.threads, "threads", 0, "CPU threads (0 = all cores, up to 4)")
	fs.BoolVar(&o.json, "json", false, "print JSON with segments, language and timings")
	fs.BoolVar(&o.verbose, "verbose", false, "log the engine's progress to stderr")
	fs.StringVar(&o.remote, "remote", "", "URL of an OpenAI-compatible server (such as whisperkey serve) to transcribe on instead of locally")
	fs.StringVar(&o.apiKey, "api-key", envOr("WHISPERKEY_REMOTE_API_KEY", ""), "bearer token for --remote (default $WHISPERKEY_REMOTE_API_KEY)")
	fs.StringVar(&o.remoteModel, "remote-model", "whisper-1", "model name sent to --remote")
	fs.BoolVar(&o.fullWindow, "full-window", false, "always decode 30-s windows, as faster-whisper does (the default)")
	fs.BoolVar(&o.shortWindow, "short-window", false, "decode recordings under 10 s on a window fitted to the speech (faster; may change a word)")
	fs.DurationVar(&o.maxAudio, "max-audio", transcribeMaxAudio, "longest audio per file, up to 24h; a longer file is refused before the model loads")
	o.words.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: whisperkey transcribe FILE [FILE ...] [flags]   (WAV, FLAC, MP3, Ogg Vorbis; other formats with ffmpeg)")
		fs.PrintDefaults()
	}
	// Accept flags before and after FILE.
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return o, usageError{err.Error()}
		}
		o.words.noteSet(fs)
		args = fs.Args()
		if len(args) > 0 {
			files, args = append(files, args[0]), args[1:]
		}
	}
	if len(files) == 0 {
		return o, usageError{"transcribe needs at least one audio file (WAV, FLAC, MP3, Ogg, or anything ffmpeg reads); run `whisperkey transcribe --help`"}
	}
	if o.fullWindow && o.shortWindow {
		return o, usageError{"--full-window and --short-window contradict each other; pick one"}
	}
	if err := validateEngineFlags(o.beamSize, o.threads, o.device); err != nil {
		return o, err
	}
	if o.maxAudio < time.Second || o.maxAudio > transcribeMaxAudioTop {
		return o, usageError{fmt.Sprintf("--max-audio %s is out of range; give a duration from 1s to %s, such as 90m", o.maxAudio, transcribeMaxAudioTop)}
	}
	o.files = files
	return o, nil
}

func runTranscribe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseTranscribe(args, stderr)
	if errors.Is(err, flag.ErrHelp) || (err != nil && strings.Contains(err.Error(), flag.ErrHelp.Error())) {
		return nil
	}
	if err != nil {
		return err
	}
	opt := whisper.DefaultOptions()
	opt.Language, opt.BeamSize = o.language, o.beamSize
	opt.ShortWindow = (opt.ShortWindow || o.shortWindow) && !o.fullWindow
	shape, err := o.words.resolve(&opt)
	if err != nil {
		return err
	}
	// Every file is read before the model loads, so a bad one in a batch
	// fails at once instead of after minutes of work.
	// The same limit as serve's: decoding stops past it, so memory follows
	// the limit, not what a file declares.
	lim := audio.Limits{MaxAudio: o.maxAudio, Raise: fmt.Sprintf("pass a larger --max-audio (up to %s)", transcribeMaxAudioTop)}
	clips := make([][]float32, len(o.files))
	for i, f := range o.files {
		if clips[i], err = audio.DecodeFileLimited(f, lim); err != nil {
			return usageError{err.Error()}
		}
	}
	log := cliLogger(stderr, o.verbose)
	post := newPostProcess(o.words, shape, log)
	if o.remote != "" {
		return transcribeRemote(ctx, o, opt, post, clips, stdout, stderr)
	}
	env, err := cliEnvironment(log)
	if err != nil {
		return err
	}
	choice := engineChoice{device: o.device, computeType: o.computeType, threads: o.threads}
	modelDir, err := env.modelDir(ctx, o.model, choice)
	if err != nil {
		return usageError{err.Error()}
	}
	loadStart := time.Now()
	m, err := env.openModel(ctx, modelDir, choice)
	if err != nil {
		return err
	}
	defer m.Close()
	unmet := backend.UnmetRequest(o.device, m)
	if unmet != "" {
		fmt.Fprintln(stderr, "whisperkey:", unmet)
	}
	load := time.Since(loadStart)
	if d := env.speechDetector(); d != nil {
		defer d.Close()
		m.UseSpeechDetector(d)
	}
	// One engine process for all files, in order: the later ones are warm.
	return writeTranscripts(ctx, m, o, opt, post, clips, stdout, func(file string, res *whisper.Result, info dictationInfo) any {
		return struct {
			File string `json:"file"`
			*whisper.Result
			dictationInfo
			Model       string  `json:"model"`
			Device      string  `json:"device"`
			ComputeType string  `json:"compute_type"`
			GPUMessage  string  `json:"gpu_message"`
			LoadSeconds float64 `json:"load_seconds"`
			RTF         float64 `json:"real_time_factor"`
			// DeviceUnmet says why an explicitly requested GPU device is not used.
			DeviceUnmet string `json:"device_unmet,omitempty"`
		}{file, res, info, modelDir, m.Spec.Device, m.Spec.ComputeType, m.Message, load.Seconds(),
			res.Timings.Total.Seconds() / max(res.Duration, 1e-9), unmet}
	})
}

// validateEngineFlags checks the engine flags every command shares, so serve
// and transcribe accept the same values.
func validateEngineFlags(beamSize, threads int, device string) error {
	for _, c := range []struct {
		flag string
		err  error
	}{{"--beam-size", whisper.ValidateBeamSize(beamSize)}, {"--threads", backend.ValidateThreads(threads)},
		{"--device", backend.ValidateDevice(device)}} {
		if c.err != nil {
			return usageError{c.flag + ": " + c.err.Error()}
		}
	}
	return nil
}

// transcriber is the engine or remote server a transcribe run uses.
type transcriber interface {
	Transcribe(ctx context.Context, samples []float32, opt whisper.Options) (*whisper.Result, error)
}

// dictationInfo is what --json adds about the profile and AI cleanup.
type dictationInfo struct {
	Profile string `json:"profile,omitempty"`
	// Cleanup is the AI cleanup mode used; RawText the text as heard when
	// the cleanup's rewrite replaced it; CleanupNotice why it did not.
	Cleanup        string  `json:"cleanup,omitempty"`
	RawText        string  `json:"raw_text,omitempty"`
	CleanupNotice  string  `json:"cleanup_notice,omitempty"`
	CleanupSeconds float64 `json:"cleanup_seconds,omitempty"`
}

// postProcess is what happens to a transcript before it is printed: the AI
// cleanup, if on, then the text settings.
type postProcess struct {
	shape   *textproc.Processor
	cfg     config.Config
	profile string
	cleaner *cleanup.Client // nil: no cleanup
}

func newPostProcess(w wordsFlags, shape *textproc.Processor, log *slog.Logger) postProcess {
	p := postProcess{shape: shape, cfg: w.cfg, profile: w.profile}
	if pr, ok := w.cfg.Profiles.Find(w.profile); ok {
		p.profile = pr.Name
	}
	if w.cfg.Cleanup.ActiveMode() != "" {
		c := w.cfg.Cleanup
		cl, err := cleanup.New(cleanup.Config{URL: c.URL, Model: c.Model, APIKey: c.APIKey, Timeout: c.Timeout}, log)
		if err != nil {
			log.Warn("AI cleanup not used", "err", err) // config.Load checked the URL
		} else {
			p.cleaner = cl
		}
	}
	return p
}

func (p postProcess) apply(ctx context.Context, text string) (string, dictationInfo) {
	info := dictationInfo{Profile: p.profile}
	mode := p.cfg.Cleanup.ActiveMode()
	if p.cleaner == nil || mode == "" || strings.TrimSpace(text) == "" {
		return p.shape.Apply(text), info
	}
	r := p.cleaner.Rewrite(ctx, p.cfg.Cleanup.CleanupModes()[mode], strings.TrimSpace(text))
	info.Cleanup, info.CleanupNotice, info.CleanupSeconds = mode, r.Notice(), r.Took.Seconds()
	out := p.shape.Apply(r.Text)
	if raw := p.shape.Apply(text); r.Err == nil && raw != out {
		info.RawText = raw
	}
	return out, info
}

// writeTranscripts transcribes the clips in order and prints each
// post-processed text, or with --json one JSON line per file: the object
// record makes.
func writeTranscripts(ctx context.Context, t transcriber, o transcribeOptions, opt whisper.Options, post postProcess,
	clips [][]float32, stdout io.Writer, record func(file string, res *whisper.Result, info dictationInfo) any) error {
	for i, samples := range clips {
		res, err := t.Transcribe(ctx, samples, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", o.files[i], err)
		}
		var info dictationInfo
		res.Text, info = post.apply(ctx, res.Text)
		if !o.json {
			if _, err := fmt.Fprintln(stdout, res.Text); err != nil {
				return err
			}
			continue
		}
		if err := json.NewEncoder(stdout).Encode(record(o.files[i], res, info)); err != nil {
			return err
		}
	}
	return nil
}
