package gpu

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestVerifyCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache") // created on the first Put
	g := GPU{Vendor: AMD, Name: "AMD Radeon RX 5700 XT", PCIDevice: 0x731f, Driver: "32.0.12033.1030", Family: "RDNA 1"}
	d := Decision{Variant: VariantRDNA1, Device: "cuda", GPU: &g, Runtime: "HIP SDK 6.2"}
	k := KeyFor(d, "whisper-small")
	ok := Verdict{OK: true, GPUSeconds: 0.41, CPUSeconds: 1.9, At: time.Date(2026, 2, 7, 12, 0, 0, 0, time.UTC)}

	c := OpenVerifyCache(dir)
	if _, hit, err := c.Get(k); hit || err != nil {
		t.Fatalf("empty cache: hit=%v err=%v, want a plain miss", hit, err)
	}
	if err := c.Put(k, ok); err != nil {
		t.Fatal(err)
	}
	// A later start opens the file anew and needs no check.
	if v, hit, err := OpenVerifyCache(dir).Get(k); !hit || err != nil || v != ok {
		t.Fatalf("after Put: %+v hit=%v err=%v, want %+v", v, hit, err, ok)
	}

	changed := []struct {
		name string
		edit func(*VerifyKey)
	}{
		{"new driver", func(k *VerifyKey) { k.Driver = "32.0.21013.1000" }},
		{"other variant", func(k *VerifyKey) { k.Variant = VariantCPU }},
		{"other model", func(k *VerifyKey) { k.Model = "whisper-base" }},
		{"other GPU", func(k *VerifyKey) { k.GPU, k.PCIDevice = "AMD Radeon RX 7900 XTX", 0x744c }},
		{"other runtime", func(k *VerifyKey) { k.Runtime = "HIP SDK 6.2.4" }},
	}
	for _, tt := range changed {
		t.Run(tt.name, func(t *testing.T) {
			k2 := k
			tt.edit(&k2)
			if _, hit, err := c.Get(k2); hit || err != nil {
				t.Errorf("hit=%v err=%v: a changed %s must be checked again", hit, err, tt.name)
			}
		})
	}

	// A verdict under a new driver replaces the old one instead of piling up.
	k2 := k
	k2.Driver = "32.0.21013.1000"
	wrong := Verdict{Wrong: true, Reason: "text differs from the CPU's", At: ok.At}
	if err := c.Put(k2, wrong); err != nil {
		t.Fatal(err)
	}
	if _, hit, _ := c.Get(k); hit {
		t.Error("the old driver's verdict is still there")
	}
	if v, hit, _ := c.Get(k2); !hit || v != wrong {
		t.Errorf("got %+v hit=%v, want %+v", v, hit, wrong)
	}

	// A damaged file is a miss with an error saying what to do; the next Put repairs it.
	if err := os.WriteFile(filepath.Join(dir, "gpu-verify.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, hit, err := c.Get(k2); hit || err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Errorf("damaged file: hit=%v err=%v", hit, err)
	}
	if err := c.Put(k2, wrong); err != nil {
		t.Fatal(err)
	}
	if _, hit, err := c.Get(k2); !hit || err != nil {
		t.Errorf("after repair: hit=%v err=%v", hit, err)
	}
}
