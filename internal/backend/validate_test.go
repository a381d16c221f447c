package backend

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestUnmetRequest(t *testing.T) {
	cpu := &Loaded{Spec: engine.Spec{Device: "cpu"}, Message: "No NVIDIA GPU found for device: cuda — using CPU mode"}
	gpu := &Loaded{Spec: engine.Spec{Device: "cuda"}, Message: "Detected X — using GPU acceleration"}
	type args struct {
		requested choice.Device
		l         *Loaded
	}
	tabletest.Mentions(t, "UnmetRequest", func(a args) string {
		return UnmetRequest(a.requested, a.l)
	}, []tabletest.Case[args, string]{
		{Name: "cuda on the CPU", In: args{"cuda", cpu}, Want: "device cuda was requested but cannot be used: No NVIDIA GPU found"},
		{Name: "rocm on the CPU", In: args{"rocm", cpu}, Want: "device rocm was requested"},
		{Name: "cuda on the GPU", In: args{"cuda", gpu}},
		{Name: "auto on the CPU", In: args{"auto", cpu}},
		{Name: "cpu on the CPU", In: args{"cpu", cpu}},
	})
}

func TestResolveComputeType(t *testing.T) {
	type args struct {
		ct        choice.ComputeType
		device    string
		supported []choice.ComputeType
	}
	tabletest.Check(t, "resolveComputeType", func(a args) choice.ComputeType {
		return resolveComputeType(a.ct, a.device, a.supported)
	}, []tabletest.Case[args, choice.ComputeType]{
		{Name: "explicit stays", In: args{"int8", "cpu", []choice.ComputeType{"float32"}}, Want: "int8"},
		{Name: "auto on a CPU with int8", In: args{"auto", "cpu", []choice.ComputeType{"float32", "int8_float32", "int8"}}, Want: "int8_float32"},
		{Name: "auto on a GPU prefers int8_float16", In: args{"auto", "cuda", []choice.ComputeType{"float32", "float16", "int8_float16"}}, Want: "int8_float16"},
		{Name: "auto with nothing known", In: args{"auto", "cpu", nil}, Want: "auto"},
	})
}
