package config

import (
	"fmt"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// The limits of the settings that a command-line flag or a server option
// also sets: the file, `transcribe`, `doctor` and `serve` accept the same
// values because they all ask here.
const (
	// MaxBeamSize bounds the beam: wider beams cost time in proportion and
	// gain nothing measurable for Whisper over choice.DefaultBeamSize.
	MaxBeamSize = 16
	// MaxCPUThreads is far more than any machine uses well; the native
	// engine crashes on absurd counts (100000 made it segfault).
	MaxCPUThreads = 256
)

// ValidateBeamSize checks a beam size.
func ValidateBeamSize(n int) error {
	if n < 1 || n > MaxBeamSize {
		return fmt.Errorf("beam size %d is out of range: use 1 to %d (1 = greedy, default %d)", n, MaxBeamSize, choice.DefaultBeamSize)
	}
	return nil
}

// ValidateCPUThreads checks a CPU thread count.
func ValidateCPUThreads(n int) error {
	if n < 0 || n > MaxCPUThreads {
		return fmt.Errorf("threads %d is out of range: use 0 (all cores, up to 4) or 1 to %d", n, MaxCPUThreads)
	}
	return nil
}

// ValidateDevice checks a device choice given as text (a flag).
func ValidateDevice(s string) error { return validateChoice("device", s, choice.Devices()) }

// ValidateComputeType checks a compute type given as text (a flag).
func ValidateComputeType(s string) error {
	return validateChoice("compute type", s, choice.ComputeTypes())
}

// validateChoice checks that s names one of all, and names them if not.
func validateChoice[T ~string](what, s string, all []T) error {
	names := make([]string, len(all))
	for i, v := range all {
		if string(v) == s {
			return nil
		}
		names[i] = string(v)
	}
	return fmt.Errorf("%s %q is not one of %s", what, s, strings.Join(names, ", "))
}
