package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

type transcribeOptions struct {
	files       []string
	model       string
	language    string
	languages   string // comma-separated, as the languages key
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
	// The accuracy-affecting rules the tray app always uses, switchable
	// here only, to measure what each costs (scripts/bench_defaults.py).
	speechDetector, temperatureFallback bool
	noSpeechThreshold                   float64
	// asHeld decodes each file as a hold over it would be (dictation.Replay).
	asHeld bool
	// commands are phrases each short file is checked against, as the
	// app checks a dictation against commands.undo (comma-separated).
	commands string
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
	def := config.Defaults()
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// Every setting that is also a config key defaults to the config's
	// value, as the tray app reads it; the defaults shown are the config's own.
	fs.StringVar(&o.model, "model", "", "model directory or name (default: the config's model, as the tray app uses it)")
	fs.StringVar(&o.language, "language", def.Decode.Language, "language code such as en, or auto (default: the config's language)")
	fs.StringVar(&o.languages, "languages", strings.Join(def.Decode.Languages.Items(), ","), "the languages to detect among, comma-separated such as en,de; \"\" for any (default: the config's languages)")
	fs.StringVar(&o.device, "device", string(def.Engine.Device), "auto, cpu, cuda or rocm (default: the config's device)")
	fs.StringVar(&o.computeType, "compute-type", string(def.Engine.ComputeType), "CTranslate2 compute type (default: the config's compute_type)")
	fs.IntVar(&o.beamSize, "beam-size", def.Decode.BeamSize, "beam size (1 = greedy) (default: the config's beam_size)")
	fs.IntVar(&o.threads, "threads", def.Engine.CPUThreads, threadsUsage+" (default: the config's cpu_threads)")
	fs.BoolVar(&o.json, "json", false, "print JSON with segments, language and timings")
	fs.BoolVar(&o.verbose, "verbose", false, "log the engine's progress to stderr")
	fs.StringVar(&o.remote, "remote", "", "URL of an OpenAI-compatible server (such as whisperkey serve) to transcribe on instead of locally")
	fs.StringVar(&o.apiKey, "api-key", "", "bearer token for --remote (default: the config's remote.api_key, which $WHISPERKEY_REMOTE_API_KEY overrides)")
	fs.StringVar(&o.remoteModel, "remote-model", def.Remote.Model, "model name sent to --remote (default: the config's remote.model)")
	fs.BoolVar(&o.fullWindow, "full-window", false, "always decode 30-s windows, as faster-whisper does (the default on a GPU)")
	fs.BoolVar(&o.shortWindow, "short-window", false, fmt.Sprintf("decode recordings up to %d s on a window fitted to the speech (the default on the CPU: faster; may change a word)", whisper.ShortWindowLimit))
	fs.DurationVar(&o.maxAudio, "max-audio", transcribeMaxAudio, "longest audio per file, up to 24h; a longer file is refused before the model loads")
	dec := whisper.DefaultOptions()
	fs.BoolVar(&o.speechDetector, "speech-detector", dec.DetectSpeech, "false: decode each file as it is, with no speech gate and no cut after the speech, as faster-whisper (for measuring)")
	fs.BoolVar(&o.temperatureFallback, "temperature-fallback", len(dec.Temperatures) > 1, "false: decode at temperature 0 only, never again hotter (for measuring)")
	fs.Float64Var(&o.noSpeechThreshold, "no-speech-threshold", dec.NoSpeechThreshold, "skip a window whose no-speech probability is above this unless its log-probability is good; 0 turns the rule off (for measuring)")
	fs.BoolVar(&o.asHeld, "as-held", false, "decode each file as a dictation held over it: at each pause, then at its end after what the last two agree on (decoding.early_prefix; for measuring)")
	fs.StringVar(&o.commands, "commands", "", "check each short file against these spoken command phrases, comma-separated, as the app checks a dictation against commands.undo; --json shows each phrase's score (for measuring)")
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
	if err := validateEngineFlags(o.beamSize, o.threads, o.device, o.computeType); err != nil {
		return o, err
	}
	if o.noSpeechThreshold < 0 || o.noSpeechThreshold > 1 {
		return o, usageError{fmt.Sprintf("--no-speech-threshold %g is out of range; give a probability from 0 (the rule off) to 1", o.noSpeechThreshold)}
	}
	if o.maxAudio < time.Second || o.maxAudio > transcribeMaxAudioTop {
		return o, usageError{fmt.Sprintf("--max-audio %s is out of range; give a duration from 1s to %s, such as 90m", o.maxAudio, transcribeMaxAudioTop)}
	}
	o.files = files
	return o, nil
}

// threadsUsage is the --threads help of every command that runs the engine.
const threadsUsage = "CPU threads for the engine (0 = CTranslate2's choice: all cores, up to 4)"

func runTranscribe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseTranscribe(args, stderr)
	if errors.Is(err, flag.ErrHelp) || (err != nil && strings.Contains(err.Error(), flag.ErrHelp.Error())) {
		return nil
	}
	if err != nil {
		return err
	}
	notice := func(msg string) { fmt.Fprintln(stderr, "whisperkey:", msg) }
	set, cfgUsed, err := o.settings(notice)
	if err != nil {
		return err
	}
	meta := runMeta{config: cfgUsed}
	set.Decode.DetectSpeech = o.speechDetector
	set.Decode.NoSpeechThreshold = o.noSpeechThreshold
	set.Decode.Commands = config.NewList(strings.Split(o.commands, ",")...).Items()
	if !o.temperatureFallback {
		set.Decode.Temperatures = set.Decode.Temperatures[:1]
	}
	// Every file is read before the model loads, so a bad one in a batch
	// fails at once instead of after minutes of work.
	// The same limit as serve's: decoding stops past it, so memory follows
	// the limit, not what a file declares.
	lim := audio.Limits{MaxAudio: o.maxAudio, Raise: fmt.Sprintf("pass a larger --max-audio (up to %s)", transcribeMaxAudioTop)}
	clips := make([][]float32, len(o.files))
	for i, f := range o.files {
		if clips[i], err = audio.DecodeFile(f, lim); err != nil {
			return usageError{err.Error()}
		}
	}
	log := cliLogger(stderr, o.verbose)
	log.Info("settings", "config", cmp.Or(cfgUsed, "none (the defaults)"), "profile", set.Profile)
	env, err := newEnvironmentFor(log, set.Config)
	if err != nil {
		return err
	}
	var speech dictation.SpeechGate // the gate and the cut, as the tray's (dictation.Build)
	det := env.speechDetector()
	if det != nil {
		defer det.Close()
		speech = det
	}
	cleaner := dictation.NewCleaner(set.Config, log)
	if o.asHeld && (det == nil || o.remote != "") {
		return usageError{"--as-held decodes on this machine with the speech detector: drop --remote, and see doctor if the detector is missing"}
	}
	if o.remote != "" {
		return transcribeRemote(ctx, o, speech, cleaner, set, meta, clips, stdout, stderr)
	}
	ec := set.Config.Engine
	modelDir, err := env.modelDir(ctx, ec.Model, ec)
	if err != nil {
		return usageError{err.Error()}
	}
	loadStart := time.Now()
	m, err := env.openModel(ctx, modelDir, ec)
	if err != nil {
		return err
	}
	defer m.Close()
	// The server's rule and words (whisper.ResolveLanguage), before any file is decoded.
	if set.Decode.Language, err = whisper.ResolveLanguage(set.Decode.Language, filepath.Base(modelDir), m.Languages()); err != nil {
		return usageError{err.Error()}
	}
	unmet := backend.UnmetRequest(ec.Device, m)
	if unmet != "" {
		notice(unmet)
	}
	load := time.Since(loadStart)
	kept, leftOut := m.FitVocabulary(set.Decode)
	if meta.leftOut = leftOut; len(leftOut) > 0 {
		notice(dictation.VocabularyLeftOut(kept, leftOut))
	}
	if speech != nil {
		m.UseSpeechDetector(speech) // the local engine gates itself
	}
	p := dictation.Build(m, true, speech, cleaner)
	run := p.Run
	if o.asHeld {
		run = func(ctx context.Context, samples []float32, set dictation.Settings) (dictation.Transcript, error) {
			tr, _, err := dictation.Replay(ctx, p, det.NewStream(), samples, set)
			return tr, err
		}
	}
	// One engine process for all files, in order: the later ones are warm.
	return writeTranscripts(ctx, run, set, o, clips, stdout, notice, func(file string, tr dictation.Transcript) any {
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
		}{file, tr.Result, info(set, meta, tr), modelDir, m.Spec.Device, string(m.ComputeType()), m.Message, load.Seconds(),
			tr.Result.Timings.Total.Seconds() / max(tr.Result.Duration, 1e-9), unmet}
	})
}

// validateEngineFlags checks the engine flags every command shares, so serve
// and transcribe accept the same values.
func validateEngineFlags(beamSize, threads int, device, computeType string) error {
	for _, c := range []struct {
		flag string
		err  error
	}{{"--beam-size", config.ValidateBeamSize(beamSize)}, {"--threads", config.ValidateCPUThreads(threads)},
		{"--device", config.ValidateDevice(device)}, {"--compute-type", config.ValidateComputeType(computeType)}} {
		if c.err != nil {
			return usageError{c.flag + ": " + c.err.Error()}
		}
	}
	return nil
}

// runMeta is what a transcribe run knows beside each transcript.
type runMeta struct {
	config  string   // the config file the settings came from; "" for the defaults
	leftOut []string // vocabulary terms the model's prompt has no room for
}

// dictationInfo is what --json adds about the settings and the AI cleanup.
type dictationInfo struct {
	// Config is the config file the settings came from; "" for the defaults.
	Config  string `json:"config"`
	Profile string `json:"profile,omitempty"`
	// VocabularyLeftOut are the vocabulary terms not used (no room in the prompt).
	VocabularyLeftOut []string `json:"vocabulary_left_out,omitempty"`
	// Cleanup is the AI cleanup mode used; RawText the text as heard when
	// the cleanup's rewrite replaced it; CleanupNotice why it did not.
	Cleanup        string  `json:"cleanup,omitempty"`
	RawText        string  `json:"raw_text,omitempty"`
	CleanupNotice  string  `json:"cleanup_notice,omitempty"`
	CleanupSeconds float64 `json:"cleanup_seconds,omitempty"`
}

func info(set dictation.Settings, meta runMeta, tr dictation.Transcript) dictationInfo {
	return dictationInfo{Config: meta.config, Profile: set.Profile, VocabularyLeftOut: meta.leftOut, Cleanup: tr.Cleanup, RawText: tr.Raw,
		CleanupNotice: tr.Notice, CleanupSeconds: tr.Cleaning.Seconds()}
}

// writeTranscripts runs the pipeline on the clips in order and prints each
// text, or with --json one JSON line per file: the object record makes. A
// cleanup that was not used is said on stderr too (notice), with why.
func writeTranscripts(ctx context.Context, run func(context.Context, []float32, dictation.Settings) (dictation.Transcript, error), set dictation.Settings, o transcribeOptions,
	clips [][]float32, stdout io.Writer, notice func(string), record func(file string, tr dictation.Transcript) any) error {
	for i, samples := range clips {
		tr, err := run(ctx, samples, set)
		if err != nil {
			return fmt.Errorf("%s: %w", o.files[i], err)
		}
		if tr.Result == nil { // the gate heard no speech: nothing was sent
			tr.Result = &whisper.Result{Duration: float64(len(samples)) / audio.SampleRate}
		}
		if tr.Notice != "" {
			notice(fmt.Sprintf("%s: AI cleanup (%s) not used, so the text is as heard: %s", o.files[i], tr.Cleanup, tr.Notice))
		}
		if !o.json {
			if _, err := fmt.Fprintln(stdout, tr.Text); err != nil {
				return err
			}
			continue
		}
		tr.Result.Text = tr.Text
		if err := json.NewEncoder(stdout).Encode(record(o.files[i], tr)); err != nil {
			return err
		}
	}
	return nil
}
