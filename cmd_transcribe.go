package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
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
}

func parseTranscribe(args []string, stderr io.Writer) (transcribeOptions, error) {
	var o transcribeOptions
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.model, "model", "", "model directory or name (default: the config's model, as the tray app uses it)")
	fs.StringVar(&o.language, "language", "auto", "language code such as en, or auto")
	fs.StringVar(&o.device, "device", "auto", "auto, cpu, cuda or rocm")
	fs.StringVar(&o.computeType, "compute-type", "", "CTranslate2 compute type (default int8 on CPU, int8_float16 on GPU)")
	fs.IntVar(&o.beamSize, "beam-size", 5, "beam size (1 = greedy)")
	fs.IntVar(&o.threads, "threads", 0, "CPU threads (0 = all cores, up to 4)")
	fs.BoolVar(&o.json, "json", false, "print JSON with segments, language and timings")
	fs.BoolVar(&o.verbose, "verbose", false, "log the engine's progress to stderr")
	fs.StringVar(&o.remote, "remote", "", "URL of an OpenAI-compatible server (such as whisperkey serve) to transcribe on instead of locally")
	fs.StringVar(&o.apiKey, "api-key", envOr("WHISPERKEY_REMOTE_API_KEY", ""), "bearer token for --remote (default $WHISPERKEY_REMOTE_API_KEY)")
	fs.StringVar(&o.remoteModel, "remote-model", "whisper-1", "model name sent to --remote")
	fs.BoolVar(&o.fullWindow, "full-window", false, "always decode 30-s windows, as faster-whisper does (the default)")
	fs.BoolVar(&o.shortWindow, "short-window", false, "decode recordings under 10 s on a window fitted to the speech (faster; may change a word)")
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
	clips := make([][]float32, len(o.files))
	for i, f := range o.files {
		if clips[i], err = audio.DecodeFile(f); err != nil {
			return usageError{err.Error()}
		}
	}
	if o.remote != "" {
		return transcribeRemote(ctx, o, opt, shape, clips, stdout, stderr)
	}
	log := cliLogger(stderr, o.verbose)
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
	return writeTranscripts(ctx, m, o, opt, shape, clips, stdout, func(file string, res *whisper.Result) any {
		return struct {
			File string `json:"file"`
			*whisper.Result
			Model       string  `json:"model"`
			Device      string  `json:"device"`
			ComputeType string  `json:"compute_type"`
			GPUMessage  string  `json:"gpu_message"`
			LoadSeconds float64 `json:"load_seconds"`
			RTF         float64 `json:"real_time_factor"`
			// DeviceUnmet says why an explicitly requested GPU device is not used.
			DeviceUnmet string `json:"device_unmet,omitempty"`
		}{file, res, modelDir, m.Spec.Device, m.Spec.ComputeType, m.Message, load.Seconds(),
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

// writeTranscripts transcribes the clips in order and prints each shaped
// text, or with --json one JSON line per file: the object record makes.
func writeTranscripts(ctx context.Context, t transcriber, o transcribeOptions, opt whisper.Options, shape *textproc.Processor,
	clips [][]float32, stdout io.Writer, record func(file string, res *whisper.Result) any) error {
	for i, samples := range clips {
		res, err := t.Transcribe(ctx, samples, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", o.files[i], err)
		}
		res.Text = shape.Apply(res.Text)
		if !o.json {
			if _, err := fmt.Fprintln(stdout, res.Text); err != nil {
				return err
			}
			continue
		}
		if err := json.NewEncoder(stdout).Encode(record(o.files[i], res)); err != nil {
			return err
		}
	}
	return nil
}
