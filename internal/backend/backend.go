package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/cublas"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Options say where the engine variants are and what the user asked for.
type Options struct {
	// EngineRoot holds one folder per variant (cpu, cuda, rocm, rocm-rdna1).
	EngineRoot string
	// StateDir keeps the GPU verification verdicts; "" disables the cache.
	StateDir    string
	Device      choice.Device
	DeviceIndex int
	// ComputeType "" means int8 on the CPU and the model's saved type on a GPU.
	ComputeType choice.ComputeType
	// Threads 0 means CTranslate2's default.
	Threads int
	// Sample is speech (16 kHz) used to check a GPU against the CPU before
	// trusting it; nil skips the check.
	Sample []float32
	// Engine configures the worker processes.
	Engine engine.Options
	// Sources are the GPU probes; nil means the real system.
	Sources *gpu.Sources
	// Report, when set, is used instead of probing again.
	Report *gpu.Report
	// SpeechDetector, when set, runs before decoding (Options.DetectSpeech);
	// the caller owns it and closes it after the models that use it.
	SpeechDetector whisper.SpeechDetector
	// Yielding gives a model on the CPU a second, background worker for
	// work that gives way (whisper.Yielding: transcriptions made while the
	// key is held), so that dropping such work frees the CPU at once
	// instead of after the engine call in flight.
	Yielding bool
	// Cold skips the warm-up transcriptions before a switched model serves
	// (Service.Switch): a dictation waits for it and is its first work, as
	// when a model unloaded for idleness is loaded at a key-down.
	Cold bool
}

// Loaded is an open model and the decision that placed it.
type Loaded struct {
	model    *model
	Decision gpu.Decision
	Report   gpu.Report
	Spec     engine.Spec
	// Message is the sentence for the tray, the log and doctor.
	Message string
	// ComputeNote says why WhisperKey picked the compute type, where it did
	// (gpu.PlanComputeType); "" otherwise.
	ComputeNote string
}

// Detect probes the machine's GPUs.
func Detect(ctx context.Context, opt Options, log *slog.Logger) gpu.Report {
	if opt.Report != nil {
		return *opt.Report
	}
	src := gpu.SystemSources()
	if opt.Sources != nil {
		src = *opt.Sources
	}
	if opt.EngineRoot != "" {
		// cuBLAS put into the cuda engine folder (whisperkey gpu fetch) comes first.
		src.CUDALibDirs = append([]string{filepath.Join(opt.EngineRoot, gpu.VariantCUDA)}, src.CUDALibDirs...)
	}
	return gpu.Detect(ctx, src, log)
}

// Decide picks the variant for the user's device choice.
func Decide(r gpu.Report, opt Options) gpu.Decision {
	return gpu.Choose(r, opt.Device, gpu.Engines{
		Have: func(v string) bool { return HaveVariant(opt.EngineRoot, v) },
		CUDA: gpu.ReadCUDABuild(filepath.Join(opt.EngineRoot, gpu.VariantCUDA)),
	})
}

// HaveVariant reports whether a variant folder holds the engine library.
func HaveVariant(root, variant string) bool {
	_, err := os.Stat(filepath.Join(root, variant, engine.LibraryName()))
	return err == nil
}

// SpecFor turns a decision into what the worker loads.
func SpecFor(d gpu.Decision, modelDir string, opt Options) engine.Spec {
	ct := opt.ComputeType
	if ct == "" {
		ct = choice.ComputeDefault
		if d.Device == "cpu" {
			ct = choice.Int8
		}
	}
	idx, env := d.DeviceIndex, d.Env
	if opt.DeviceIndex != 0 {
		// The config's device_index counts every device the runtime sees:
		// hide none of them.
		idx, env = opt.DeviceIndex, slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "HIP_VISIBLE_DEVICES=") })
	}
	s := engine.Spec{
		LibDir: filepath.Join(opt.EngineRoot, d.Variant), ExtraLibDirs: d.LibDirs, ModelDir: modelDir,
		Device: d.Device, DeviceIndex: idx, Env: env, ComputeType: ct, IntraThreads: opt.Threads,
	}
	if d.Device == "cpu" {
		s.DeviceIndex, s.Env = 0, nil
	}
	return s
}

func cpuDecision(d gpu.Decision, msg string) gpu.Decision {
	return gpu.Decision{Variant: gpu.VariantCPU, Device: "cpu", GPU: d.GPU, Want: d.Variant,
		WantInstalled: true, Message: msg, DocAnchor: d.DocAnchor}
}

// Open detects the GPU, picks the variant, verifies a GPU once per
// (GPU, driver, variant, model), and opens the model. A GPU variant that is
// missing, fails to start, computes wrong results or is slower than the CPU
// gives way to the CPU at once, and Message says why.
func Open(ctx context.Context, modelDir string, opt Options, log *slog.Logger) (*Loaded, error) {
	log = log.With("pkg", "backend")
	report := Detect(ctx, opt, log)
	d := Decide(report, opt)
	if d.Device != "cpu" {
		loaded, err := openGPU(ctx, report, d, modelDir, opt, log)
		if err == nil {
			return loaded, nil
		}
		var fb *fallbackError
		if !errors.As(err, &fb) {
			return nil, err
		}
		d = cpuDecision(d, fb.msg)
		log.Warn("GPU not used", "reason", fb.msg)
	}
	spec := SpecFor(d, modelDir, opt)
	m, err := openModel(ctx, spec, opt.Engine, log)
	if err != nil {
		return nil, err
	}
	m.setYielding(opt.Yielding)
	if opt.SpeechDetector != nil {
		m.UseSpeechDetector(opt.SpeechDetector)
	}
	msg := d.Message
	if msg == "" {
		msg = "No supported GPU found — using CPU mode"
	}
	log.Info(msg)
	return &Loaded{model: m, Decision: d, Report: report, Spec: SpecFor(d, modelDir, opt), Message: msg}, nil
}

// Transcribe runs one transcription on the loaded model; an AutoWindow
// becomes the short window on the CPU.
func (l *Loaded) Transcribe(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error) {
	o.Window = o.Window.Resolve(l.Spec.Device == "cpu")
	return l.model.Transcribe(ctx, samples, o)
}

// Close stops the model's engine worker.
func (l *Loaded) Close() error { return l.model.Close() }

// SetYielding gives a model on the CPU a background worker for work that
// gives way, or stops it (Options.Yielding), without loading the model again.
func (l *Loaded) SetYielding(on bool) {
	if l.Spec.Device == "cpu" {
		l.model.setYielding(on)
	}
}

// UseSpeechDetector puts d (Silero VAD) in front of decoding for requests
// with Options.DetectSpeech; the caller keeps d and closes it.
func (l *Loaded) UseSpeechDetector(d whisper.SpeechDetector) { l.model.UseSpeechDetector(d) }

// Ready is the worker's report: the model's languages and the devices with
// their compute types.
func (l *Loaded) Ready() engine.Ready { return l.model.client.Ready() }

// WorkerPID is the process id of the model's engine worker.
func (l *Loaded) WorkerPID() int { return l.model.client.WorkerPID() }

// ComputeTypes lists the compute types the loaded device supports.
func (l *Loaded) ComputeTypes() []choice.ComputeType {
	for _, d := range l.Ready().Devices {
		if d.Device == l.Spec.Device {
			return d.ComputeTypes
		}
	}
	return nil
}

// ComputeType is the compute type the model runs with: "auto" named as
// CTranslate2 resolves it on the device, from the types the device supports
// (its documented order), so a user reads int8, not auto.
func (l *Loaded) ComputeType() choice.ComputeType {
	return resolveComputeType(l.Spec.ComputeType, l.Spec.Device, l.ComputeTypes())
}

func resolveComputeType(ct choice.ComputeType, device string, supported []choice.ComputeType) choice.ComputeType {
	if ct != choice.ComputeAuto {
		return ct
	}
	order := []choice.ComputeType{choice.Int8Float32, choice.Int16, choice.Float32}
	if device != "cpu" {
		order = []choice.ComputeType{choice.Int8Float16, choice.Int8Float32, choice.Float16, choice.Float32}
	}
	for _, want := range order {
		if slices.Contains(supported, want) {
			return want
		}
	}
	return ct
}

// Languages lists the language codes Transcribe accepts (the tray's
// Language menu, whisper.ResolveLanguage): the tokenizer's, which for an
// English-only model is just en, where the engine's own list
// (Ready().Model.Languages) holds the 98 others too.
func (l *Loaded) Languages() []string { return l.model.Languages() }

// fallbackError means: use the CPU, and say msg.
type fallbackError struct{ msg string }

func (e *fallbackError) Error() string { return e.msg }

func openGPU(ctx context.Context, report gpu.Report, d gpu.Decision, modelDir string, opt Options, log *slog.Logger) (*Loaded, error) {
	var cache *gpu.VerifyCache
	if opt.StateDir != "" {
		cache = gpu.OpenVerifyCache(opt.StateDir)
	}
	configured := opt.ComputeType
	plan := planComputeType(d, modelDir, opt, cache, log)
	var int8Err error // int8 did not load in the first-run check
	if plan.CheckInt8 {
		loaded, v, err := checkInt8(ctx, report, d, modelDir, opt, log)
		switch {
		case loaded != nil:
			saveVerdict(cache, gpu.Int8Key(d, modelDir), v, log)
			return loaded, nil
		case err != nil:
			log.Info("int8 self-test: the model did not load", "compute_type", gpu.Int8Type, "err", oneLine(err))
			int8Err = err
		case v.ComputeType != "": // checked, and it failed
			saveVerdict(cache, gpu.Int8Key(d, modelDir), v, log)
			plan = gpu.PlanComputeType(d, configured, v, true, true)
		default: // the CPU reference failed: nothing was learnt about int8
			plan = gpu.PlanComputeType(d, configured, gpu.Verdict{}, false, false)
		}
	}
	if plan.Note != "" {
		opt.ComputeType = plan.ComputeType
	}
	loaded, err := openVerified(ctx, report, d, modelDir, opt, cache, plan.Note != "", log)
	if err != nil {
		return nil, err
	}
	if int8Err != nil {
		// float16 loads where int8 did not: that is int8's failure. Were
		// float16 to fail as well, the engine would be broken, not int8.
		v := gpu.Verdict{Reason: "did not load: " + oneLine(int8Err), ComputeType: gpu.Int8Type, At: time.Now()}
		saveVerdict(cache, gpu.Int8Key(d, modelDir), v, log)
		plan = gpu.PlanComputeType(d, configured, v, true, true)
	}
	loaded.ComputeNote = plan.Note
	if plan.Note != "" {
		log.Info("compute type chosen", "compute_type", loaded.Spec.ComputeType, "why", plan.Note)
	}
	return loaded, nil
}

// planComputeType applies gpu.PlanComputeType with the card's remembered
// int8 verdict.
func planComputeType(d gpu.Decision, modelDir string, opt Options, cache *gpu.VerifyCache, log *slog.Logger) gpu.ComputePlan {
	var v gpu.Verdict
	var checked bool
	if cache != nil && d.Variant == gpu.VariantRDNA1 {
		var err error
		if v, checked, err = cache.Get(gpu.Int8Key(d, modelDir)); err != nil {
			log.Warn("could not read the GPU verifications", "err", err)
		}
	}
	return gpu.PlanComputeType(d, opt.ComputeType, v, checked, cache != nil && opt.Sample != nil)
}

func saveVerdict(cache *gpu.VerifyCache, k gpu.VerifyKey, v gpu.Verdict, log *slog.Logger) {
	if cache == nil {
		return
	}
	if err := cache.Put(k, v); err != nil {
		log.Warn("could not save the GPU verification", "err", err)
	}
}

// checkInt8 is the first-run int8 self-test: the model loaded with
// gpu.Int8Type on the GPU, checked against the CPU. It returns the model
// when it passed; the verdict (ComputeType set) when it ran; the load error
// when int8 did not load. A CPU reference that fails decides nothing.
func checkInt8(ctx context.Context, report gpu.Report, d gpu.Decision, modelDir string, opt Options, log *slog.Logger) (*Loaded, gpu.Verdict, error) {
	opt.ComputeType = gpu.Int8Type
	spec := SpecFor(d, modelDir, opt)
	m, err := openModel(ctx, spec, opt.Engine, log)
	if err != nil {
		return nil, gpu.Verdict{}, err
	}
	v, err := Verify(ctx, m, d, modelDir, opt, log)
	switch {
	case errors.Is(err, errCPUReference):
		log.Warn("int8 not checked", "err", err)
		_ = m.Close()
		return nil, gpu.Verdict{}, nil
	case err != nil: // int8 GEMMs that fail at run time end here
		v = gpu.Verdict{Reason: oneLine(err), ComputeType: gpu.Int8Type, At: time.Now()}
	}
	if !v.OK {
		_ = m.Close()
		return nil, v, nil
	}
	return &Loaded{model: m, Decision: d, Report: report, Spec: spec, Message: d.Message,
		ComputeNote: string(gpu.Int8Type) + ": int8 passed the self-test on this card"}, v, nil
}

// openVerified opens the model on the GPU and checks it against the CPU
// once per verify key; byType keys the verdict by compute type as well.
func openVerified(ctx context.Context, report gpu.Report, d gpu.Decision, modelDir string, opt Options, cache *gpu.VerifyCache, byType bool, log *slog.Logger) (*Loaded, error) {
	spec := SpecFor(d, modelDir, opt)
	key := gpu.KeyFor(d, modelDir)
	if byType {
		key.ComputeType = spec.ComputeType
	}
	if cache != nil {
		if v, ok, err := cache.Get(key); err == nil && ok && !v.OK {
			return nil, &fallbackError{gpu.VerifyMessage(d, v)}
		}
	}
	m, err := openModel(ctx, spec, opt.Engine, log)
	if err != nil {
		return nil, &fallbackError{gpu.FallbackMessage(d, oneLine(err))}
	}
	loaded := &Loaded{model: m, Decision: d, Report: report, Spec: spec, Message: d.Message}
	if opt.Sample == nil {
		return loaded, nil
	}
	if cache != nil {
		if v, ok, _ := cache.Get(key); ok && v.OK {
			return loaded, nil
		}
	}
	v, err := Verify(ctx, m, d, modelDir, opt, log)
	if err != nil {
		_ = m.Close()
		return nil, &fallbackError{gpu.FallbackMessage(d, oneLine(err))}
	}
	saveVerdict(cache, key, v, log)
	if !v.OK {
		_ = m.Close()
		return nil, &fallbackError{gpu.VerifyMessage(d, v)}
	}
	return loaded, nil
}

// errCPUReference marks a Verify failure on the CPU side, which says
// nothing about the GPU.
var errCPUReference = errors.New("CPU reference")

// Verify transcribes opt.Sample on the GPU model (loaded with
// opt.ComputeType) and on a CPU worker and compares them: a GPU whose text
// differs (as the first gfx1010 build's did) or that is slower than the CPU
// is not to be used. The verdict says which compute type the GPU ran.
func Verify(ctx context.Context, gpuModel transcriber, d gpu.Decision, modelDir string, opt Options, log *slog.Logger) (gpu.Verdict, error) {
	o := whisper.DefaultOptions()
	o.Language = "en"
	o.Temperatures = []float32{0}
	o.Window = whisper.FullWindow // the same decoding on both: the devices are compared
	// Warm both once so load-time work is not counted.
	run := func(m transcriber) (string, time.Duration, error) {
		if _, err := m.Transcribe(ctx, opt.Sample, o); err != nil {
			return "", 0, err
		}
		start := time.Now()
		res, err := m.Transcribe(ctx, opt.Sample, o)
		if err != nil {
			return "", 0, err
		}
		return res.Text, time.Since(start), nil
	}
	ct := SpecFor(d, modelDir, opt).ComputeType
	gText, gTime, err := run(gpuModel)
	if err != nil {
		return gpu.Verdict{}, fmt.Errorf("GPU self-test (%s): %w", ct, err)
	}
	// The CPU runs its own default type: a GPU type such as float16 would
	// not load there.
	cpuOpt := opt
	cpuOpt.ComputeType = ""
	cpu, err := openModel(ctx, SpecFor(gpu.Decision{Variant: gpu.VariantCPU, Device: "cpu"}, modelDir, cpuOpt), opt.Engine, log)
	if err != nil {
		return gpu.Verdict{}, fmt.Errorf("%w: %w", errCPUReference, err)
	}
	defer cpu.Close()
	cText, cTime, err := run(cpu)
	if err != nil {
		return gpu.Verdict{}, fmt.Errorf("%w: %w", errCPUReference, err)
	}
	v := gpu.Verdict{GPUSeconds: gTime.Seconds(), CPUSeconds: cTime.Seconds(), ComputeType: ct, At: time.Now()}
	wer := whisper.WordErrorRate(cText, gText)
	switch {
	case wer > 0.2:
		v.Wrong = true
		v.Reason = fmt.Sprintf("its text differs from the CPU's in %.0f%% of words: %q vs %q", wer*100, gText, cText)
	case gTime > cTime:
		v.Reason = "slower than the CPU"
	default:
		v.OK = true
	}
	log.Info("GPU verified", "ok", v.OK, "compute_type", ct, "gpu_s", v.GPUSeconds, "cpu_s", v.CPUSeconds, "wer", wer)
	return v, nil
}

func oneLine(err error) string {
	s := err.Error()
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// FitVocabulary splits o's vocabulary into the terms that reach the decoder
// and those left out for want of room in the prompt (whisper.FitVocabulary).
func (l *Loaded) FitVocabulary(o whisper.Options) (kept, dropped []string) {
	return l.model.FitVocabulary(o)
}

// CUBLAS is the cuBLAS download for the cuda engine under opt.EngineRoot
// (for the CUDA it was built with) and the folder it goes in; pinFile is
// $WHISPERKEY_CUBLAS_PIN.
func CUBLAS(opt Options, goos, pinFile string) (cublas.Pin, string, error) {
	dir := filepath.Join(opt.EngineRoot, gpu.VariantCUDA)
	if !HaveVariant(opt.EngineRoot, gpu.VariantCUDA) {
		return cublas.Pin{}, dir, fmt.Errorf("the cuda engine is not in %s, so cuBLAS has nothing to serve: reinstall WhisperKey with its GPU engine (docs/gpu-setup.md#engine-files-are-missing)", dir)
	}
	major := gpu.EngineCUDAMajor
	if b := gpu.ReadCUDABuild(dir); b != nil {
		major = b.Major
	}
	p, err := cublas.For(major, goos, pinFile)
	return p, dir, err
}
