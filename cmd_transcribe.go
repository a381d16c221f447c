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
	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

type transcribeOptions struct {
	file        string
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
}

func parseTranscribe(args []string, stderr io.Writer) (transcribeOptions, error) {
	var o transcribeOptions
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.model, "model", "", "model directory or name (default: the config's model)")
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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: whisperkey transcribe FILE.wav [flags]")
		fs.PrintDefaults()
	}
	// Accept flags before and after FILE.
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return o, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) > 0 {
			files, args = append(files, args[0]), args[1:]
		}
	}
	if len(files) != 1 {
		return o, usageError{"transcribe takes exactly one WAV file; run `whisperkey transcribe --help`"}
	}
	if o.beamSize < 1 {
		return o, usageError{fmt.Sprintf("--beam-size %d: must be 1 or more", o.beamSize)}
	}
	o.file = files[0]
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
	samples, err := audio.LoadWAV16k(o.file)
	if err != nil {
		return usageError{err.Error()}
	}
	if o.remote != "" {
		return transcribeRemote(ctx, o, samples, stdout, stderr)
	}
	log := cliLogger(stderr, o.verbose)
	env, err := newEnvironment(log)
	if err != nil {
		return err
	}
	modelDir, err := env.modelDir(o.model)
	if err != nil {
		return usageError{err.Error()}
	}
	loadStart := time.Now()
	m, err := env.openModel(ctx, modelDir, engineChoice{device: o.device, computeType: o.computeType, threads: o.threads})
	if errors.Is(err, ct2bin.ErrInvalidModel) {
		return usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	defer m.Close()
	load := time.Since(loadStart)
	opt := whisper.DefaultOptions()
	opt.Language, opt.BeamSize = o.language, o.beamSize
	res, err := m.Transcribe(ctx, samples, opt)
	if err != nil {
		return err
	}
	if !o.json {
		_, err = fmt.Fprintln(stdout, res.Text)
		return err
	}
	out := struct {
		*whisper.Result
		Model       string  `json:"model"`
		Device      string  `json:"device"`
		ComputeType string  `json:"compute_type"`
		GPUMessage  string  `json:"gpu_message"`
		LoadSeconds float64 `json:"load_seconds"`
		RTF         float64 `json:"real_time_factor"`
	}{res, modelDir, m.Spec.Device, m.Spec.ComputeType, m.Message, load.Seconds(),
		res.Timings.Total.Seconds() / max(res.Duration, 1e-9)}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
