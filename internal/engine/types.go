package engine

import (
	"errors"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/wire"
)

// Spec says which library variant and model a worker loads.
type Spec struct {
	// LibDir is the variant folder holding the ct2engine library (e.g. build/engine/cpu).
	LibDir string `json:"lib_dir"`
	// ExtraLibDirs are searched for the library's own dependencies (e.g. the HIP SDK's bin).
	ExtraLibDirs []string `json:"extra_lib_dirs,omitempty"`
	ModelDir     string   `json:"model_dir"`
	// Device is "cpu" or "cuda" (ROCm builds also say "cuda").
	Device      string `json:"device"`
	DeviceIndex int    `json:"device_index"`
	// Env is added to the worker's environment last, so it wins: what makes
	// DeviceIndex the chosen GPU (CUDA_DEVICE_ORDER, HIP_VISIBLE_DEVICES).
	Env []string `json:"env,omitempty"`
	// ComputeType "" means choice.ComputeDefault (the saved type, with fallback).
	ComputeType choice.ComputeType `json:"compute_type"`
	// IntraThreads 0 means CTranslate2's default.
	IntraThreads int `json:"intra_threads"`
	// InterThreads 0 means 1.
	InterThreads int `json:"inter_threads"`
}

// ModelInfo are the facts the loaded model reports.
type ModelInfo struct {
	NMels        int      `json:"n_mels"`
	Multilingual bool     `json:"multilingual"`
	NumLanguages int      `json:"num_languages"`
	Languages    []string `json:"languages"`
	VocabSize    int      `json:"vocab_size"`
}

// DeviceReport is one device kind the library can use.
type DeviceReport struct {
	Device       string               `json:"device"`
	Count        int                  `json:"count"`
	ComputeTypes []choice.ComputeType `json:"compute_types"`
	// ISA is the instruction set the library's CPU kernels dispatch to
	// (AVX512, AVX2, AVX, GENERIC; cpu only, "" from libraries before it).
	ISA string `json:"isa,omitempty"`
}

// Ready is what a worker reports once its model is loaded.
type Ready struct {
	Model      ModelInfo      `json:"model"`
	Devices    []DeviceReport `json:"devices"`
	LoadMillis int64          `json:"load_ms"`
	PID        int            `json:"pid"`
	// CanAlign says the library has the align op that word timestamps
	// need (libraries built before it lack it and still serve the rest).
	CanAlign bool `json:"can_align"`
}

// The per-window types live in package wire, which the transcriber uses
// without depending on the worker; these names keep the engine's API whole.
type (
	Window          = wire.Window
	GenerateRequest = wire.GenerateRequest
	GenerateResult  = wire.GenerateResult
	LangProb        = wire.LangProb
	AlignRequest    = wire.AlignRequest
	AlignResult     = wire.AlignResult
)

var (
	// ErrWorkerCrashed means the worker died and could not be brought back.
	ErrWorkerCrashed = errors.New("engine worker crashed")
	// ErrClosed means the client was closed.
	ErrClosed = errors.New("engine closed")
)

// LoadError is a failure of the library or model to load in the worker;
// restarting will not help, so the supervisor does not retry it.
type LoadError struct{ Msg string }

func (e *LoadError) Error() string { return e.Msg }
