package gpu

import (
	"fmt"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Int8Type is the int8 compute type a gfx1010 card runs once int8 has passed
// the self-test on it: int8 GEMMs and float16 around them, what auto picks on
// a GPU.
const Int8Type = choice.Int8Float16

// Int8Key is what a card's int8 verdict is kept under: per card, driver,
// runtime, variant and model, like every verdict.
func Int8Key(d Decision, model string) VerifyKey {
	k := KeyFor(d, model)
	k.ComputeType = Int8Type
	return k
}

// ComputePlan is the compute type a GPU model loads with, when the config
// leaves the choice to WhisperKey.
type ComputePlan struct {
	// ComputeType is what to load with; "" leaves it to the engine spec (the
	// model's saved type on a GPU).
	ComputeType choice.ComputeType
	// CheckInt8 means: run the self-test with Int8Type first and keep it if
	// it passes, else load ComputeType.
	CheckInt8 bool
	// Note says why, for the log and doctor; "" when the rule does not apply.
	Note string
}

// PlanComputeType applies the gfx1010 rule. CTranslate2 reports int8 and
// float16 as supported on every HIP device, but int8 GEMMs on the community
// gfx1010 rocBLAS were never verified, so on the rocm-rdna1 variant the
// compute type WhisperKey picks (configured "" or auto) is float16 until
// int8 has passed the self-test on that card. int8 is the card's int8
// verdict when checked; canCheck says a first-run check can be made and
// remembered (a self-test sample and a verdict cache). A compute type the
// user named is used as it is.
func PlanComputeType(d Decision, configured choice.ComputeType, int8 Verdict, checked, canCheck bool) ComputePlan {
	if d.Variant != VariantRDNA1 || (configured != "" && configured != choice.ComputeAuto) {
		return ComputePlan{ComputeType: configured}
	}
	switch {
	case checked && int8.OK:
		return ComputePlan{ComputeType: Int8Type, Note: string(Int8Type) + ": int8 passed the self-test on this card"}
	case checked:
		return ComputePlan{ComputeType: choice.Float16, Note: "float16: int8 failed the self-test on this card (" + int8Failure(int8) + ")"}
	case canCheck:
		return ComputePlan{ComputeType: choice.Float16, CheckInt8: true, Note: "float16 unless int8 passes the self-test on this card"}
	}
	return ComputePlan{ComputeType: choice.Float16, Note: "float16: int8 has not been checked on this card"}
}

// int8Failure says in a few words why an int8 check failed.
func int8Failure(v Verdict) string {
	switch {
	case v.Reason != "" && v.Wrong:
		return "wrong text: " + v.Reason
	case v.Reason != "":
		return v.Reason
	}
	return fmt.Sprintf("slower than the CPU: %.1f s against %.1f s", v.GPUSeconds, v.CPUSeconds)
}
