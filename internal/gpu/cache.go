package gpu

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Verdict is the outcome of checking a GPU variant with a real transcription
// against the CPU: right text, and faster.
type Verdict struct {
	OK         bool    `json:"ok"`
	Wrong      bool    `json:"wrong,omitempty"` // the GPU's text differed from the CPU's; else !OK means slower
	Reason     string  `json:"reason,omitempty"`
	GPUSeconds float64 `json:"gpu_seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// ComputeType is the compute type the GPU ran the check with ("default":
	// the model's saved type).
	ComputeType choice.ComputeType `json:"compute_type,omitempty"`
	At          time.Time          `json:"at"`
}

// VerifyKey is what a verdict holds for: a change to any field means checking again.
type VerifyKey struct {
	GPU       string `json:"gpu"`
	PCIDevice uint16 `json:"pci_device"`
	Driver    string `json:"driver"`
	Runtime   string `json:"runtime"` // CUDA / HIP SDK version: changes results like a driver does
	Variant   string `json:"variant"`
	Model     string `json:"model"`
	// ComputeType is set where WhisperKey picks the compute type by a check
	// (PlanComputeType): the int8 and float16 verdicts of a card differ.
	ComputeType choice.ComputeType `json:"compute_type,omitempty"`
}

// KeyFor is the verify key of running model on d's GPU with d's variant.
func KeyFor(d Decision, model string) VerifyKey {
	k := VerifyKey{Variant: d.Variant, Runtime: d.Runtime, Model: model}
	if d.GPU != nil {
		k.GPU, k.PCIDevice, k.Driver = d.GPU.Name, d.GPU.PCIDevice, d.GPU.Driver
	}
	return k
}

// VerifyCache keeps verdicts in a JSON file so later starts need not check again.
type VerifyCache struct {
	path string
	mu   sync.Mutex
}

type cacheEntry struct {
	Key     VerifyKey `json:"key"`
	Verdict Verdict   `json:"verdict"`
}

// OpenVerifyCache uses dir/gpu-verify.json; the file is created on the first Put.
func OpenVerifyCache(dir string) *VerifyCache {
	return &VerifyCache{path: filepath.Join(dir, VerifyFile)}
}

// VerifyFile is the verdicts' file name in its folder.
const VerifyFile = "gpu-verify.json"

// Get returns the verdict for k. A missing file is a miss; an unreadable one
// is a miss and an error, so the caller logs it and checks again.
func (c *VerifyCache) Get(k VerifyKey) (Verdict, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, err := c.load()
	for _, e := range es {
		if e.Key == k {
			return e.Verdict, true, err
		}
	}
	return Verdict{}, false, err
}

// Put stores v for k, replacing verdicts for the same GPU, variant, model and
// compute type under an older driver or runtime (they can never be asked for again).
func (c *VerifyCache) Put(k VerifyKey, v Verdict) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, _ := c.load() // an unreadable file is overwritten
	kept := es[:0]
	for _, e := range es {
		if e.Key.GPU != k.GPU || e.Key.PCIDevice != k.PCIDevice || e.Key.Variant != k.Variant || e.Key.Model != k.Model || e.Key.ComputeType != k.ComputeType {
			kept = append(kept, e)
		}
	}
	kept = append(kept, cacheEntry{Key: k, Verdict: v})
	data, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return fmt.Errorf("encode verify cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("create verify cache dir: %w", err)
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		return fmt.Errorf("replace %s: %w", c.path, err)
	}
	return nil
}

func (c *VerifyCache) load() ([]cacheEntry, error) {
	data, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", c.path, err)
	}
	var es []cacheEntry
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, fmt.Errorf("read %s: %w (delete the file to check the GPU again)", c.path, err)
	}
	return es, nil
}
