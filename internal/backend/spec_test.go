package backend_test

import (
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/gpu"
)

// The worker gets the device the decision matched by PCI address, and the
// environment that makes that number the GPU; the config's device_index
// wins, and then no device is hidden.
func TestSpecForDevice(t *testing.T) {
	hip := gpu.Decision{Variant: gpu.VariantRDNA1, Device: "cuda", DeviceIndex: 0, Env: []string{"HIP_VISIBLE_DEVICES=1"}}
	cuda := gpu.Decision{Variant: gpu.VariantCUDA, Device: "cuda", DeviceIndex: 1, Env: []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"}}
	tests := []struct {
		name      string
		d         gpu.Decision
		userIndex int
		index     int
		env       []string
	}{
		{"HIP: the matched device is the only one visible", hip, 0, 0, []string{"HIP_VISIBLE_DEVICES=1"}},
		{"HIP: device_index in the config counts every device", hip, 2, 2, []string{}},
		{"CUDA: bus order and the matched index", cuda, 0, 1, []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"}},
		{"CUDA: device_index in the config, in bus order", cuda, 3, 3, []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"}},
		{"CPU: nothing", gpu.Decision{Variant: gpu.VariantCPU, Device: "cpu", Env: []string{"HIP_VISIBLE_DEVICES=1"}}, 2, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := backend.SpecFor(tt.d, "/m", backend.Options{EngineRoot: "/e", DeviceIndex: tt.userIndex})
			if s.DeviceIndex != tt.index || !slices.Equal(s.Env, tt.env) {
				t.Fatalf("device %d, env %q; want %d, %q", s.DeviceIndex, s.Env, tt.index, tt.env)
			}
			if tt.d.Env[0] != hip.Env[0] && tt.d.Env[0] != cuda.Env[0] {
				t.Fatal("the decision's env was changed")
			}
		})
	}
}
