package backend

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/authenticode"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// DoctorReport is everything `whisperkey doctor` finds; its JSON form is
// described by docs/doctor.schema.json and meant for bug reports.
type DoctorReport struct {
	Version      string            `json:"version"`
	Platform     string            `json:"platform"`
	GPUs         []gpu.GPU         `json:"gpus"`
	ROCm         []gpu.ROCmInstall `json:"rocm"`
	Problems     []string          `json:"problems"`
	Requirements []gpu.Check       `json:"requirements"`
	Variants     map[string]bool   `json:"variants"`
	Decision     gpu.Decision      `json:"decision"`
	Message      string            `json:"message"`
	Engine       *EngineReport     `json:"engine"`
	SelfTest     *SelfTest         `json:"self_test"`
	// Environment is the WhisperKey variables set ("NAME=value"; secrets hidden).
	Environment []string `json:"environment,omitempty"`
	// SpeechDetector says where the Silero speech detector was found, or why not.
	SpeechDetector *DetectorReport `json:"speech_detector,omitempty"`
	// Downloads says where models come from and go.
	Downloads *DownloadsReport `json:"model_downloads,omitempty"`
	// Signature is the running program's Authenticode signature and whether
	// Windows trusts it; Windows only (where SmartScreen and antivirus look).
	Signature *authenticode.Status `json:"signature,omitempty"`
	Error     string               `json:"error,omitempty"`
}

// DetectorReport is where the speech detector was loaded from (Dir), or why
// it could not be (Error).
type DetectorReport struct {
	Dir   string `json:"dir,omitempty"`
	Error string `json:"error,omitempty"`
}

// DownloadsReport is where models are downloaded from (Endpoint, set by
// From: models.mirror, HF_ENDPOINT or default) and kept (CacheDir).
type DownloadsReport struct {
	Endpoint string `json:"endpoint"`
	From     string `json:"from"`
	CacheDir string `json:"cache_dir"`
}

// EngineReport is the running engine's own account of itself.
type EngineReport struct {
	Variant     string             `json:"variant"`
	LibDir      string             `json:"lib_dir"`
	Device      string             `json:"device"`
	ComputeType choice.ComputeType `json:"compute_type"`
	// ComputeNote says why WhisperKey picked ComputeType where it did (on
	// gfx1010: float16 unless int8 passed the self-test on the card).
	ComputeNote string                `json:"compute_type_note,omitempty"`
	ModelDir    string                `json:"model_dir"`
	Model       engine.ModelInfo      `json:"model"`
	Devices     []engine.DeviceReport `json:"devices"`
	LoadMillis  int64                 `json:"load_ms"`
	// Window is the window short dictations (whisper.ShortWindowLimit) are decoded on, "short"
	// or "full", as decoding.short_window resolves on this device; "" when
	// the caller did not say.
	Window string `json:"window,omitempty"`
}

// SelfTest is one transcription of the bundled sample.
type SelfTest struct {
	OK           bool    `json:"ok"`
	AudioSeconds float64 `json:"audio_seconds"`
	Seconds      float64 `json:"seconds"`
	Text         string  `json:"text"`
	Expected     string  `json:"expected"`
	WER          float64 `json:"wer"`
	// ComputeType is the compute type the model ran the sample with.
	ComputeType choice.ComputeType `json:"compute_type"`
}

// Doctor detects, decides, opens the model the way the app would, and runs
// the self-test. Failures are recorded in the report, not returned.
func Doctor(ctx context.Context, modelDir string, opt Options, version string, log *slog.Logger) DoctorReport {
	r := DoctorReport{Version: version, Platform: runtime.GOOS + "/" + runtime.GOARCH, Variants: map[string]bool{}}
	report := Detect(ctx, opt, log)
	r.GPUs, r.ROCm, r.Problems = report.GPUs, report.ROCm, report.Problems
	for _, v := range []string{gpu.VariantCPU, gpu.VariantCUDA, gpu.VariantROCm, gpu.VariantRDNA1} {
		r.Variants[v] = HaveVariant(opt.EngineRoot, v)
	}
	d := Decide(report, opt)
	r.Decision, r.Message = d, d.Message
	r.Requirements = gpu.Requirements(report, d)
	if modelDir == "" {
		r.Error = "no model to test"
		return r
	}
	sample := opt.Sample
	opt.Report = &report // detected once already
	loaded, err := Open(ctx, modelDir, opt, log)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer loaded.Close()
	r.Decision, r.Message = loaded.Decision, loaded.Message
	ready := loaded.Ready()
	r.Engine = &EngineReport{Variant: loaded.Decision.Variant, LibDir: loaded.Spec.LibDir, Device: loaded.Spec.Device,
		ComputeType: loaded.ComputeType(), ComputeNote: loaded.ComputeNote, ModelDir: modelDir, Model: ready.Model, Devices: ready.Devices, LoadMillis: ready.LoadMillis}
	if sample == nil {
		return r
	}
	o := whisper.DefaultOptions()
	o.Language = "en"
	start := time.Now()
	res, err := loaded.Transcribe(ctx, sample, o)
	if err != nil {
		r.Error = "self-test: " + err.Error()
		return r
	}
	wer := whisper.WordErrorRate(SelfTestText, res.Text)
	r.SelfTest = &SelfTest{OK: wer <= 0.25, AudioSeconds: res.Duration, Seconds: time.Since(start).Seconds(),
		Text: res.Text, Expected: SelfTestText, WER: wer, ComputeType: r.Engine.ComputeType}
	return r
}

// Print writes the report for people.
func (r DoctorReport) Print(w io.Writer) {
	mark := func(ok bool) string {
		if ok {
			return "✔"
		}
		return "✘"
	}
	fmt.Fprintf(w, "WhisperKey %s on %s\n", r.Version, r.Platform)
	if s := r.Signature; s != nil {
		switch {
		case s.Trusted:
			fmt.Fprintf(w, "Signature: %s signed by %s (issued by %s), trusted by Windows\n", mark(true), s.Signer, s.Issuer)
		case s.Signed:
			fmt.Fprintf(w, "Signature: %s signed by %s (issued by %s), but Windows does not trust it: %s\n", mark(false), s.Signer, s.Issuer, s.Problem)
		default:
			fmt.Fprintf(w, "Signature: %s %s\n", mark(false), s.Problem)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "GPUs:")
	if len(r.GPUs) == 0 {
		fmt.Fprintln(w, "  none found")
	}
	for _, g := range r.GPUs {
		var facts []string
		for _, f := range []string{g.Arch, g.Driver, g.CUDAVersion} {
			if f != "" {
				facts = append(facts, f)
			}
		}
		if g.VRAM > 0 {
			facts = append(facts, fmt.Sprintf("%.1f GB", float64(g.VRAM)/(1<<30)))
		}
		if g.PCIBus != "" {
			facts = append(facts, "PCI "+g.PCIBus)
		}
		fmt.Fprintf(w, "  %s  %s\n", g.Label(), strings.Join(facts, " · "))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  note: %s\n", p)
	}
	if len(r.Requirements) > 0 {
		fmt.Fprintln(w, "\nRequirements:")
		for _, c := range r.Requirements {
			fmt.Fprintf(w, "  %s %s", mark(c.OK), c.Name)
			if !c.OK && c.Fix != "" {
				fmt.Fprintf(w, " — fix: %s", c.Fix)
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Environment) > 0 {
		fmt.Fprintln(w, "\nEnvironment variables set:")
		for _, e := range r.Environment {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if d := r.Downloads; d != nil {
		fmt.Fprintf(w, "\nModel downloads: from %s (%s), kept in %s\n", d.Endpoint, d.From, d.CacheDir)
	}
	fmt.Fprintln(w, "\nEngine variants installed:")
	for _, v := range []string{gpu.VariantCPU, gpu.VariantCUDA, gpu.VariantROCm, gpu.VariantRDNA1} {
		fmt.Fprintf(w, "  %s %s\n", mark(r.Variants[v]), v)
	}
	fmt.Fprintf(w, "\nDecision: %s\n", r.Message)
	if d := r.Decision; d.Device != "cpu" && d.Match != "" {
		fmt.Fprintf(w, "  device: %s\n", d.Match)
	}
	if d := r.SpeechDetector; d != nil {
		if d.Error != "" {
			fmt.Fprintf(w, "\nSpeech detector: %s %s; presses without speech are decoded too\n", mark(false), d.Error)
		} else {
			fmt.Fprintf(w, "\nSpeech detector: %s ready: %s\n", mark(true), d.Dir)
		}
	}
	if e := r.Engine; e != nil {
		fmt.Fprintf(w, "\nEngine: %s variant, %s %s, model %s (loaded in %d ms)\n", e.Variant, e.Device, e.ComputeType, e.ModelDir, e.LoadMillis)
		for _, d := range e.Devices {
			fmt.Fprintf(w, "  library device %s ×%d: %s\n", d.Device, d.Count, joinComputeTypes(d.ComputeTypes))
			if d.ISA != "" {
				// A build without AVX2 kernels is many times slower: say which it runs.
				fmt.Fprintf(w, "  CPU kernels: %s\n", d.ISA)
			}
		}
		if e.ComputeNote != "" {
			fmt.Fprintf(w, "  compute type %s\n", e.ComputeNote)
		}
		if e.Window != "" {
			fmt.Fprintf(w, "  window for dictations up to %d s: %s (decoding.short_window)\n", whisper.ShortWindowLimit, e.Window)
		}
	}
	if s := r.SelfTest; s != nil {
		fmt.Fprintf(w, "\nSelf-test: %s %.1f s of speech in %.2f s (%.2f× real time, %s): %q\n",
			mark(s.OK), s.AudioSeconds, s.Seconds, s.Seconds/s.AudioSeconds, s.ComputeType, s.Text)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "\n✘ %s\n", r.Error)
	}
}

// joinComputeTypes names the types a device reports, as the library lists them.
func joinComputeTypes(ts []choice.ComputeType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
