package gpu

import (
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// TestPlanComputeType: on gfx1010 the compute type WhisperKey picks is
// float16 until int8 has passed the self-test on that very card, and the
// verdicts come from the cache file as a later start reads them.
func TestPlanComputeType(t *testing.T) {
	at := time.Date(2026, 2, 7, 12, 0, 0, 0, time.UTC)
	rx := GPU{Vendor: AMD, Name: "AMD Radeon RX 5700 XT", PCIDevice: 0x731f, Driver: "32.0.12033.1030", Arch: "gfx1010", Family: "RDNA 1"}
	w5700 := GPU{Vendor: AMD, Name: "AMD Radeon Pro W5700", PCIDevice: 0x7310, Driver: "32.0.12033.1030", Arch: "gfx1010", Family: "RDNA 1"}
	newDriver := rx
	newDriver.Driver = "32.0.21013.1000"
	xtx := GPU{Vendor: AMD, Name: "AMD Radeon RX 7900 XTX", PCIDevice: 0x744c, Arch: "gfx1100", Family: "RDNA 3"}
	rtx := GPU{Vendor: NVIDIA, Name: "NVIDIA GeForce RTX 3060", CUDAVersion: "12.4"}
	rdna1 := func(g GPU) Decision {
		return Decision{Variant: VariantRDNA1, Device: "cuda", GPU: &g, Runtime: "HIP SDK 6.2"}
	}
	passed := Verdict{OK: true, GPUSeconds: 0.3, CPUSeconds: 1.9, ComputeType: Int8Type, At: at}
	wrong := Verdict{Wrong: true, Reason: `its text differs from the CPU's in 100% of words: "" vs "Remember to buy milk"`, ComputeType: Int8Type, At: at}
	const model = "whisper-small"

	tests := []struct {
		name       string
		int8For    *Decision // whose int8 verdict the cache holds
		verdict    Verdict
		float16For *Decision // a float16 verdict stored after it, for the same card
		d          Decision
		configured choice.ComputeType
		noCheck    bool // no sample or no cache: nothing can be checked
		want       ComputePlan
	}{
		{name: "first run, auto: float16 and check int8", d: rdna1(rx), configured: "auto",
			want: ComputePlan{ComputeType: "float16", CheckInt8: true, Note: "float16 unless int8 passes the self-test on this card"}},
		{name: "first run, unset: the same", d: rdna1(rx), configured: "",
			want: ComputePlan{ComputeType: "float16", CheckInt8: true, Note: "float16 unless int8 passes the self-test on this card"}},
		{name: "nothing to check with: float16", d: rdna1(rx), configured: "auto", noCheck: true,
			want: ComputePlan{ComputeType: "float16", Note: "float16: int8 has not been checked on this card"}},
		{name: "int8 passed on this card", int8For: ptr(rdna1(rx)), verdict: passed, d: rdna1(rx), configured: "auto",
			want: ComputePlan{ComputeType: Int8Type, Note: string(Int8Type) + ": int8 passed the self-test on this card"}},
		{name: "int8 passed, then float16 verified too: both kept", int8For: ptr(rdna1(rx)), verdict: passed, float16For: ptr(rdna1(rx)),
			d: rdna1(rx), configured: "auto",
			want: ComputePlan{ComputeType: Int8Type, Note: string(Int8Type) + ": int8 passed the self-test on this card"}},
		{name: "int8 failed on this card: float16, not checked again", int8For: ptr(rdna1(rx)), verdict: wrong, d: rdna1(rx), configured: "auto",
			want: ComputePlan{ComputeType: "float16", Note: "float16: int8 failed the self-test on this card (wrong text: " + wrong.Reason + ")"}},
		{name: "int8 failed to load", int8For: ptr(rdna1(rx)), verdict: Verdict{Reason: "did not load: hipblasGemmEx: HIPBLAS_STATUS_NOT_SUPPORTED", ComputeType: Int8Type},
			d: rdna1(rx), configured: "auto",
			want: ComputePlan{ComputeType: "float16", Note: "float16: int8 failed the self-test on this card (did not load: hipblasGemmEx: HIPBLAS_STATUS_NOT_SUPPORTED)"}},
		{name: "int8 passed on another card: this one is checked", int8For: ptr(rdna1(w5700)), verdict: passed, d: rdna1(rx), configured: "auto",
			want: ComputePlan{ComputeType: "float16", CheckInt8: true, Note: "float16 unless int8 passes the self-test on this card"}},
		{name: "int8 passed under the old driver: checked again", int8For: ptr(rdna1(rx)), verdict: passed, d: rdna1(newDriver), configured: "auto",
			want: ComputePlan{ComputeType: "float16", CheckInt8: true, Note: "float16 unless int8 passes the self-test on this card"}},
		{name: "int8 named in the config is used", d: rdna1(rx), configured: "int8", want: ComputePlan{ComputeType: "int8"}},
		{name: "float32 named in the config is used", int8For: ptr(rdna1(rx)), verdict: passed, d: rdna1(rx), configured: "float32",
			want: ComputePlan{ComputeType: "float32"}},
		{name: "RDNA 3 on the rocm variant: no rule", d: Decision{Variant: VariantROCm, Device: "cuda", GPU: &xtx}, configured: "auto",
			want: ComputePlan{ComputeType: "auto"}},
		{name: "NVIDIA: no rule", d: Decision{Variant: VariantCUDA, Device: "cuda", GPU: &rtx}, configured: "auto",
			want: ComputePlan{ComputeType: "auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.int8For != nil {
				if err := OpenVerifyCache(dir).Put(Int8Key(*tt.int8For, model), tt.verdict); err != nil {
					t.Fatal(err)
				}
			}
			if tt.float16For != nil {
				k := KeyFor(*tt.float16For, model)
				k.ComputeType = "float16"
				if err := OpenVerifyCache(dir).Put(k, Verdict{OK: true, ComputeType: "float16", At: at}); err != nil {
					t.Fatal(err)
				}
			}
			// A later start: the file read anew.
			v, checked, err := OpenVerifyCache(dir).Get(Int8Key(tt.d, model))
			if err != nil {
				t.Fatal(err)
			}
			if got := PlanComputeType(tt.d, tt.configured, v, checked, !tt.noCheck); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
