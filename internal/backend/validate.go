package backend

import (
	"fmt"
	"slices"
	"strings"
)

// Devices are the values a device choice may take.
var Devices = []string{"auto", "cpu", "cuda", "rocm"}

// ValidateDevice checks a user-given device choice.
func ValidateDevice(s string) error {
	if !slices.Contains(Devices, s) {
		return fmt.Errorf("device %q is not one of %s", s, strings.Join(Devices, ", "))
	}
	return nil
}

// MaxThreads is the most CPU threads accepted, as the config's cpu_threads:
// far more than any machine uses well, and the native engine crashes on
// absurd counts (100000 made it segfault).
const MaxThreads = 256

// ValidateThreads checks a user-given CPU thread count.
func ValidateThreads(n int) error {
	if n < 0 || n > MaxThreads {
		return fmt.Errorf("threads %d is out of range: use 0 (all cores, up to 4) or 1 to %d", n, MaxThreads)
	}
	return nil
}

// UnmetRequest is the sentence to show when the user asked for a GPU device
// explicitly (cuda or rocm) and the model runs on the CPU instead; "" when
// the request was met or nothing was requested.
func UnmetRequest(requested string, l *Loaded) string {
	if (requested != "cuda" && requested != "rocm") || l.Spec.Device != "cpu" {
		return ""
	}
	return fmt.Sprintf("device %s was requested but cannot be used: %s", requested, l.Message)
}
