package commands

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/authenticode"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/envvars"
	"github.com/whisperkey/whisperkey/internal/session"
)

func runDoctor(ctx context.Context, version string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON (docs/doctor.schema.json), for bug reports")
	model := fs.String("model", "", "model directory or name (default: the config's model, as the tray app uses it)")
	device := fs.String("device", "auto", "auto, cpu, cuda or rocm (default: the config's device)")
	verbose := fs.Bool("verbose", false, "log every probe to stderr")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if err := config.ValidateDevice(*device); err != nil {
		return usageError{"--device: " + err.Error()}
	}
	log := cliLogger(stderr, *verbose)
	env, err := cliEnvironment(log)
	if err != nil {
		return err
	}
	// The engine as the tray app opens it: the config's device, compute type
	// and threads; --device overrides the device.
	ec := env.cfg.Engine
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "device" {
			ec.Device = choice.Device(*device)
		}
	})
	opt := env.backendOptions(ec)
	dir, derr := env.modelDir(ctx, *model, ec)
	r := backend.Doctor(ctx, dir, opt, version, log)
	if derr != nil {
		r.Error = derr.Error()
	}
	r.Environment = envvars.Set(os.Environ(), config.EnvOverrides())
	r.SpeechDetector = speechDetectorReport(log)
	endpoint, from := env.cache.Endpoint()
	r.Downloads = &backend.DownloadsReport{Endpoint: endpoint, From: from, CacheDir: env.cache.Dir()}
	r.Signature = signatureReport()
	if e := r.Engine; e != nil {
		e.Window = dictation.Window(env.cfg).Resolve(e.Device == "cpu").String()
	}
	mic := audio.Probe(audio.Config{Device: env.cfg.Audio.InputDevice, PreRoll: preRoll(env.cfg)}, log)
	mic.Media = config.MediaNote(env.cfg, runtime.GOOS)
	// The desktop session and its routes for the hotkey and the paste
	// (Linux: X11 or Wayland, and which desktop).
	var desk *session.Report
	if runtime.GOOS == "linux" {
		rep := session.Evaluate(session.Probe(ctx, os.Getenv))
		desk = &rep
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doctorJSON{DoctorReport: r, Desktop: desk, Microphone: &mic}); err != nil {
			return err
		}
	} else {
		r.Print(stdout)
		mic.Print(stdout)
		if desk != nil {
			desk.Print(stdout)
		}
	}
	if r.Error != "" || (r.SelfTest != nil && !r.SelfTest.OK) {
		return errSilent
	}
	return nil
}

// signatureReport is the running exe's signature as Windows sees it; nil on
// other systems, where programs are not signed this way.
func signatureReport() *authenticode.Status {
	if runtime.GOOS != "windows" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return &authenticode.Status{Problem: "cannot find the running program: " + err.Error()}
	}
	s := authenticode.Check(exe)
	return &s
}

// doctorJSON is the report with the desktop session and the microphone
// beside the engine's fields (docs/doctor.schema.json: desktop, microphone).
type doctorJSON struct {
	backend.DoctorReport
	Desktop    *session.Report  `json:"desktop,omitempty"`
	Microphone *audio.MicReport `json:"microphone,omitempty"`
}

// preRoll is the pre-roll the tray app asks of the recorder.
func preRoll(cfg config.Config) time.Duration {
	if cfg.Audio.PreRoll {
		return cfg.Audio.PreRollLength
	}
	return 0
}
