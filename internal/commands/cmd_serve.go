package commands

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/server"
)

type serveOptions struct {
	config         string // --config; "" is the user's
	set            map[string]bool
	listen         string
	model          string
	language       string
	apiKey         string
	insecureNoAuth bool
	device         string
	computeType    string
	threads        int
	beamSize       int
	queue          int
	maxUploadMB    int
	uploadMemoryMB int
	maxAudio       time.Duration
	timeout        time.Duration
	verbose        bool
	allowOrigins   listFlag
	allowHosts     listFlag
}

// maxUploadMB bounds --max-upload-mb: far above any audio upload, and far
// below where MiB overflow a byte count.
const maxUploadMB = 4096

// maxUploadMemoryMB bounds --upload-memory-mb: 16 uploads of the largest.
const maxUploadMemoryMB = 16 * maxUploadMB

// maxAudioLimit bounds --max-audio: two hours are 440 MiB of 16 kHz samples
// for each request being decoded or waiting for the engine, and a request
// of two hours peaks at about 1.3 GiB (docs/serve.md, Memory); a longer
// recording is better split, and a larger value would be no limit at all.
const maxAudioLimit = 2 * time.Hour

// listFlag is a flag that may be given several times or as a comma list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func parseServe(args []string, stderr io.Writer) (serveOptions, error) {
	var o serveOptions
	def := config.Defaults()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The settings that are also config keys default to the config's values
	// (--config, else the user's), as the tray app reads them; a flag given
	// overrides its key. The defaults shown are the built-in config's.
	fs.StringVar(&o.config, "config", "", "read the model, language, beam size and engine settings from this config file instead of yours (whisperkey config path)")
	fs.StringVar(&o.listen, "listen", server.DefaultAddr, "HOST:PORT to listen on; other than loopback needs --api-key or --insecure-no-auth")
	fs.StringVar(&o.model, "model", def.Engine.Model, "model directory or name (default: the config's model, as the tray app uses it)")
	fs.StringVar(&o.language, "language", def.Decode.Language, "language code such as en, or auto, for a request that names none (default: the config's language)")
	fs.StringVar(&o.apiKey, "api-key", os.Getenv("WHISPERKEY_SERVE_API_KEY"), "bearer token clients must send (default $WHISPERKEY_SERVE_API_KEY)")
	fs.BoolVar(&o.insecureNoAuth, "insecure-no-auth", false, "allow a non-loopback --listen without --api-key: anyone who can connect may use the engine")
	fs.StringVar(&o.device, "device", string(def.Engine.Device), "auto, cpu, cuda or rocm (default: the config's device)")
	fs.StringVar(&o.computeType, "compute-type", string(def.Engine.ComputeType), "CTranslate2 compute type; auto is int8 on CPU, the model's on GPU (default: the config's compute_type)")
	fs.IntVar(&o.threads, "threads", def.Engine.CPUThreads, threadsUsage+" (default: the config's cpu_threads)")
	fs.IntVar(&o.beamSize, "beam-size", def.Decode.BeamSize, "beam size (1 = greedy) (default: the config's beam_size)")
	fs.IntVar(&o.queue, "queue", 8, "requests that may wait for the engine; more get 429")
	fs.IntVar(&o.maxUploadMB, "max-upload-mb", 25, "largest upload in MiB; larger gets 413")
	fs.IntVar(&o.uploadMemoryMB, "upload-memory-mb", 0, "MiB all uploads may hold together while read and decoded; more wait, then get 503 (default 100, or --max-upload-mb when larger)")
	fs.DurationVar(&o.maxAudio, "max-audio", 15*time.Minute, "longest audio per request; longer gets 413")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "per-request limit, upload and queue included")
	fs.BoolVar(&o.verbose, "verbose", false, "log debug detail (never audio or text)")
	fs.Var(&o.allowOrigins, "allow-origin", "a browser origin (https://app.example) whose pages may call the server; repeatable. Others get 403. '*' allows every page, only with --api-key")
	fs.Var(&o.allowHosts, "allow-host", "a Host name clients may use besides loopback and the --listen host; repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: whisperkey serve [flags]\n\nAn OpenAI-compatible speech-to-text server: POST /v1/audio/transcriptions, GET /v1/models.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, usageError{fmt.Sprintf("serve takes no arguments (got %q); run `whisperkey serve --help`", fs.Arg(0))}
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if err := validateEngineFlags(o.beamSize, o.threads, o.device, o.computeType); err != nil {
		return o, err
	}
	switch {
	case o.queue < 1 || o.queue > 1000:
		return o, usageError{fmt.Sprintf("--queue %d: must be 1 to 1000", o.queue)}
	case o.maxUploadMB < 1 || o.maxUploadMB > maxUploadMB:
		return o, usageError{fmt.Sprintf("--max-upload-mb %d: must be 1 to %d", o.maxUploadMB, maxUploadMB)}
	case o.uploadMemoryMB != 0 && (o.uploadMemoryMB < o.maxUploadMB || o.uploadMemoryMB > maxUploadMemoryMB):
		return o, usageError{fmt.Sprintf("--upload-memory-mb %d: must be from --max-upload-mb (%d), so that one upload fits, to %d", o.uploadMemoryMB, o.maxUploadMB, maxUploadMemoryMB)}
	case o.maxAudio < time.Second || o.maxAudio > maxAudioLimit:
		return o, usageError{fmt.Sprintf("--max-audio %s: must be from 1s to %s, which is already %d MiB of samples for each request in the server; split longer recordings",
			o.maxAudio, maxAudioLimit, int64(maxAudioLimit.Seconds())*audio.SampleRate*4>>20)}
	case o.timeout < time.Second:
		return o, usageError{fmt.Sprintf("--timeout %s: must be at least 1s", o.timeout)}
	}
	key, err := server.CheckAPIKey(o.apiKey)
	if err != nil {
		return o, usageError{err.Error()}
	}
	o.apiKey = key
	// Refuse an open address before loading a model, so the mistake shows at once.
	if err := server.CheckListen(o.listen, o.apiKey, o.insecureNoAuth); err != nil {
		return o, usageError{err.Error()}
	}
	if err := server.CheckOrigins(o.allowOrigins, o.apiKey); err != nil {
		return o, usageError{err.Error()}
	}
	return o, nil
}

func runServe(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parseServe(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return err
		}
		return usageError{err.Error()}
	}
	level := slog.LevelInfo
	if o.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg, _, used, err := commandConfig(o.config, false, func(msg string) { log.Warn(msg) })
	if err != nil {
		return err
	}
	o.fromConfig(cfg)
	log.Info("settings", "config", cmp.Or(used, "none (the defaults)"), "model", o.model, "language", o.language, "beam_size", o.beamSize)
	env, err := newEnvironmentFor(log, cfg)
	if err != nil {
		return err
	}
	ec := cfg.Engine // the device index and the rest as configured; the flags override three
	ec.Device, ec.ComputeType, ec.CPUThreads = choice.Device(o.device), choice.ComputeType(o.computeType), o.threads
	modelDir, err := env.modelDir(ctx, o.model, ec)
	if err != nil {
		return usageError{err.Error()}
	}
	m, err := env.openModel(ctx, modelDir, ec)
	if err != nil {
		return err
	}
	defer m.Close()
	var eng server.Transcriber = m
	if d := env.speechDetector(); d != nil {
		// A request without speech is answered with no text at once, and
		// the silence after the last words is not decoded: a file sent here
		// gives the words transcribe and transcribe --remote give.
		defer d.Close()
		m.UseSpeechDetector(d)
		eng = dictation.Build(m, true, d, nil) // the stages of transcribe, without cleanup or shaping
	}
	name := filepath.Base(modelDir) // the id GET /v1/models lists, such as whisper-base
	srv, err := server.New(server.Config{
		Addr: o.listen, APIKey: o.apiKey, InsecureNoAuth: o.insecureNoAuth, Model: name, Languages: m.Languages(),
		MaxUploadBytes: int64(o.maxUploadMB) << 20, UploadMemory: int64(o.uploadMemoryMB) << 20, MaxAudio: o.maxAudio, Queue: o.queue,
		RequestTimeout: o.timeout, BeamSize: o.beamSize, Language: o.language,
		AllowedOrigins: o.allowOrigins, AllowedHosts: o.allowHosts,
	}, log, eng)
	if err != nil {
		return usageError{err.Error()}
	}
	ln, err := srv.Listen()
	if err != nil {
		return err
	}
	if unmet := backend.UnmetRequest(choice.Device(o.device), m); unmet != "" {
		log.Warn(unmet)
	}
	log.Info("engine ready", "model", name, "device", m.Spec.Device, "compute_type", m.ComputeType(), "gpu", m.Message)
	err = srv.Serve(ctx, ln)
	if ctx.Err() != nil && err == nil {
		return nil // SIGTERM/SIGINT: a clean stop
	}
	return err
}

// fromConfig takes each setting the command line did not give from cfg.
func (o *serveOptions) fromConfig(cfg config.Config) {
	for flagName, apply := range map[string]func(){
		"model":        func() { o.model = cfg.Engine.Model },
		"language":     func() { o.language = cfg.Decode.Language },
		"beam-size":    func() { o.beamSize = cfg.Decode.BeamSize },
		"device":       func() { o.device = string(cfg.Engine.Device) },
		"compute-type": func() { o.computeType = string(cfg.Engine.ComputeType) },
		"threads":      func() { o.threads = cfg.Engine.CPUThreads },
	} {
		if !o.set[flagName] {
			apply()
		}
	}
}
